import Sobreiro
import SobreiroTesting
import Testing

private struct Failure: Error {}

/// A transaction started from inside `write { $0 … }` (a method of the model that writes) changes the state
/// behind the closure's copy; it stands when the closure leaves its copy alone.
@Suite("T5: transactions nested in the in-place write")
struct NestedInPlaceWriteTests {
    @Test("T5: a method that writes, called from write { $0 … } that changes nothing itself, commits its change once")
    func nestedChangeStandsWhenTheCopyIsUnchanged() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)

        let seen = model.write { state -> Int in
            if state.count == 0 { model.increment() }
            return state.count
        }

        #expect(seen == 0, "the closure's copy does not see the nested change")
        #expect(model.state.count == 1)
        #expect(recorder.history == [Counter(), Counter(count: 1)])
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
            try model.write { (_: inout Counter) throws(Failure) in
                model.increment()
                throw Failure()
            }
        }

        #expect(model.state == Counter())
        #expect(recorder.history == [Counter()])
    }
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
