import Sobreiro
import SobreiroTesting
import Testing

private struct Failure: Error {}

/// A transaction started from inside `write { $0 … }` (a method of the model that writes) joins it: both change the
/// one state the transaction builds, and every change stands.
@Suite("T5: transactions nested in the in-place write")
struct NestedInPlaceWriteTests {
    @Test("T5: a method that writes, called between two changes of write { $0 … }, composes with both")
    func nestedChangeComposesWithTheDraftsChanges() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)

        let seen = model.write { draft -> Int in
            draft.count += 1
            model.increment()
            draft.count += 1
            draft.label = "composed"
            return draft.count
        }

        #expect(seen == 3, "the draft sees the nested change")
        #expect(model.state == Counter(count: 3, label: "composed"))
        #expect(recorder.history == [Counter(), Counter(count: 3, label: "composed")], "one notification")
    }

    @Test("T5: a method that writes, called from write { $0 … } that changes nothing itself, commits its change once")
    func nestedChangeStandsWhenTheDraftIsUnchanged() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)

        let seen = model.write { draft -> Int in
            if draft.count == 0 { model.increment() }
            return draft.count
        }

        #expect(seen == 1)
        #expect(model.state.count == 1)
        #expect(recorder.history == [Counter(), Counter(count: 1)])
    }

    @Test("T5: a nested in-place write sees the outer one's changes, and the outer one sees its")
    func nestedInPlaceWritesShareTheState() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)

        model.write { outer in
            outer.count = 1
            let inner = model.write { inner -> Int in
                inner.count *= 10
                return inner.count
            }
            #expect(inner == 10)
            outer.count += 1
            #expect(model.state.count == 11, "inside the transaction, state is the state being built")
        }

        #expect(recorder.history == [Counter(), Counter(count: 11)])
    }

    @Test("T5: inside an outer write { state = … }, the in-place write's nested change joins the outer one")
    func nestedChangeJoinsTheOuterTransaction() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)

        model.write {
            model.rename("outer")
            model.write { _ in model.increment() }
            model.write { $0.count += 10 }
        }

        #expect(recorder.history == [Counter(), Counter(count: 11, label: "outer")])
    }

    @Test("T5: a throw after the nested change rolls both back, and nobody hears of it")
    func throwAfterTheNestedChangeRollsBack() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)

        #expect(throws: Failure.self) {
            try model.write { (draft: borrowing Draft<Counter>) throws(Failure) in
                draft.count += 5
                model.increment()
                throw Failure()
            }
        }

        #expect(model.state == Counter())
        #expect(recorder.history == [Counter()])
    }

    @Test("T5: a nested in-place write that throws rolls back only its own changes")
    func nestedThrowRollsBackOnlyItself() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)

        model.write { draft in
            draft.count = 1
            #expect(throws: Failure.self) {
                try model.write { (inner: borrowing Draft<Counter>) throws(Failure) in
                    inner.count = 100
                    throw Failure()
                }
            }
            draft.count += 1
        }

        #expect(recorder.history == [Counter(), Counter(count: 2)])
    }

    @Test("T5: the whole state is changed by its own mutating method, or replaced, through the draft")
    func wholeStateThroughTheDraft() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)

        model.write { $0.whole.bump() }
        model.write { $0.whole = Counter(count: 7, label: "seven") }

        #expect(recorder.history == [Counter(), Counter(count: 1), Counter(count: 7, label: "seven")])
    }
}

extension Counter {
    fileprivate mutating func bump() { count += 1 }
}

/// A state with a field that is not equal to itself until it is measured, as a `Double.nan` placeholder is.
struct Measurement: ViewState {
    var count = 0
    var reading = Double.nan
}

final class MeasurementModel: ViewModel<Measurement>, @unchecked Sendable {
    init() {
        super.init(initialState: Measurement())
    }

    func increment() {
        write { state.count += 1 }
    }
}

@Suite("T5: transactions nested in the in-place write, on a state not equal to itself")
struct NestedInPlaceWriteOnUnequalStateTests {
    @Test("T5: a method that writes, called from write { $0 … } that changes nothing, works on a state with a NaN")
    func nestedChangeStandsOnAStateNotEqualToItself() async {
        await #expect(processExitsWith: .success) {
            let model = MeasurementModel()
            model.write { _ in model.increment() }
            precondition(model.state.count == 1, "the nested change was lost")
        }
    }
}
