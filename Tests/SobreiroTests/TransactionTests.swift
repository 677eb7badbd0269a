import Sobreiro
import SobreiroTesting
import Synchronization
import Testing

private struct Failure: Error {}

@Suite("Transactions")
struct TransactionTests {
    @Test("T1: concurrent writes from many threads lose no update")
    func concurrentWritesAreAtomic() async {
        // Given
        let model = CounterModel()
        // When
        await expectCompletes {
            race(times: 8) { _ in
                for _ in 0..<5_000 { model.write { $0.count += 1 } }
            }
        }
        // Then
        #expect(model.state.count == 40_000)
    }

    @Test("T1: write, update and the in-place write mixed on many threads never deadlock")
    func mixedTransactionsDoNotDeadlock() async {
        let model = CounterModel()
        let view = ProbeView<Counter>()
        model.subscribe(view: view)
        await expectCompletes {
            race(times: 6) { index in
                for _ in 0..<2_000 {
                    switch index % 3 {
                    case 0: model.increment()
                    case 1: model.update { Counter(count: model.state.count + 1, label: model.state.label) }
                    default: model.write { $0.count += 1 }
                    }
                }
            }
        }
        #expect(model.state.count == 12_000)
        #expect(view.history.last == model.state)
    }

    @Test("T2: many assignments in one transaction notify once, with the committed state")
    func oneNotificationPerTransaction() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)
        model.write {
            model.state.count = 1
            model.state.count = 2
            model.state.label = "done"
        }
        #expect(recorder.history == [Counter(), Counter(count: 2, label: "done")])
    }

    @Test("T3: a throwing transaction leaves the state unchanged and notifies nobody", arguments: [0, 1, 2])
    func throwingTransactionRollsBack(form: Int) {
        let model = CounterModel(count: 7)
        let recorder = StateRecorder(subscribedTo: model)
        #expect(throws: Failure.self) {
            switch form {
            case 0:
                try model.write {
                    model.state.count = 99; throw Failure()
                }
            case 1: try model.update { throw Failure() }
            default:
                try model.write { (state: borrowing Draft<Counter>) in
                    state.count = 99; throw Failure()
                }
            }
        }
        #expect(model.state.count == 7)
        #expect(recorder.history == [Counter(count: 7)])
    }

    @Test("T3: a nested transaction that throws rolls back only itself when the outer one catches")
    func nestedThrowRollsBackInnerOnly() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)
        model.write {
            model.state.count = 1
            try? model.write {
                model.state.count = 50
                throw Failure()
            }
            model.state.label = "outer"
        }
        #expect(model.state == Counter(count: 1, label: "outer"))
        #expect(recorder.history == [Counter(), Counter(count: 1, label: "outer")])
    }

    @Test("T4: inside a transaction, state reads the state being built")
    func readInsideTransactionSeesDraft() {
        let model = CounterModel()
        var seen = -1
        model.write {
            model.state.count = 5
            seen = model.state.count
        }
        #expect(seen == 5)
    }

    @Test("T4: a transaction on another thread never exposes its draft")
    func otherThreadsSeeOnlyCommittedStates() async {
        let model = CounterModel()
        let draftsSeen = Atomic<Int>(0)
        await expectCompletes {
            race(times: 4) { index in
                for _ in 0..<2_000 {
                    if index == 0 {
                        model.write {
                            model.state.count += 1
                            model.state.label = "odd-\(model.state.count)"
                            model.state.label = "even"
                        }
                    } else {
                        if model.state.label.hasPrefix("odd") { draftsSeen.add(1, ordering: .relaxed) }
                    }
                }
            }
        }
        #expect(model.state.count == 2_000)
        #expect(draftsSeen.load(ordering: .relaxed) == 0)
    }

    @Test("T4: setting state outside a transaction traps with a message naming write")
    func settingOutsideTransactionTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let model = CounterModel()
            model.state = Counter(count: 1)
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("outside a transaction"))
        #expect(message.contains("write {"))
    }

    @Test("T5: transactions nested through methods join the outer one: one notification")
    func nestedTransactionsJoin() {
        let model = CounterModel()
        let recorder = StateRecorder(subscribedTo: model)
        model.write {
            model.increment()
            model.rename("joined")
            model.write { $0.count += 10 }
            model.update { Counter(count: model.state.count + 1, label: model.state.label) }
        }
        #expect(recorder.history == [Counter(), Counter(count: 12, label: "joined")])
    }

    @Test("T5: a write made while the draft changes a member, from code running in that change, traps")
    func writingDuringADraftAccessTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let model = CounterModel()
            model.write { draft in
                draft.label.append(
                    contentsOf: ["a", "b"].lazy.map { letter -> Character in
                        model.increment()
                        return Character(letter)
                    })
            }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("Read what that code needs before the change, and write after it"))
    }

    @Test("T4: a read of state while the draft changes a member, from code running in that change, traps")
    func readingDuringADraftAccessTraps() async throws {
        // The copy read would share the member's buffer while the change goes on in it, and change after it was read.
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let model = ListModel()
            model.write { draft in
                draft.items.append(
                    contentsOf: (10..<13).lazy.map { item -> Int in
                        _ = model.state
                        return item
                    })
            }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("was read or written while write { $0 … } was changing one of its members"))
    }

    @Test("T4: a read of the member that the draft is changing, from code running in it, traps")
    func readingTheMemberUnderChangeTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let model = ListModel()
            model.update { Listing(items: [1, 2, 3], limit: 2) }
            model.write { draft in
                draft.items.removeAll { _ in draft.items.count > 2 }
            }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("Read what that code needs before the change"))
    }

    /// Replacing the member under change would free the storage that the change still writes to: in optimized
    /// builds too, it traps rather than corrupt memory.
    @Test(
        "T5: a change of the member that the draft is changing, or of the whole state it changes, from code running in it, traps",
        arguments: [false, true]
    )
    func changingTheMemberUnderChangeTraps(throughWhole: Bool) async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [throughWhole] in
            let model = ListModel()
            model.update { Listing(items: [1, 2, 3], limit: 2) }
            model.write { draft in
                if throughWhole {
                    draft.whole.items.removeAll { _ in
                        draft.limit = 0
                        return false
                    }
                } else {
                    draft.items.removeAll { item in
                        draft.items = []
                        return item == 1
                    }
                }
            }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("Read what that code needs before the change, and write after it"))
    }

    @Test(
        "T5: accesses to the draft may not overlap, as a class's stored property's may not: another member read during a change, or two members changed at once, trap",
        arguments: [0, 1, 2]
    )
    func overlappingAccessesToOtherMembersTrap(shape: Int) async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [shape] in
            let model = ListModel()
            model.update { Listing(items: [1, 2, 3], limit: 2, extra: [9], pin: 0) }
            model.write { draft in
                switch shape {
                case 0: draft.items.removeAll { $0 == draft.limit }
                case 1: swap(&draft.items, &draft.extra)
                default: draft.pin? += draft.limit
                }
            }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("Read what that code needs before the change, and write after it"))
    }

    @Test("T6: a state whose == writes its model, while a transaction compares, traps rather than lose that change")
    func equalityThatWritesTheModelTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let model = ViewModel(initialState: SelfWritingEquality())
            SelfWritingEquality.model = model
            model.write { $0.count = 1 }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("keep == free of the model"))
    }

    @Test("T5: what code running during a change needs is read before it, and the other member written after it")
    func readFirstThenChange() {
        let model = ListModel()
        model.update { Listing(items: [1, 2, 3], limit: 2, extra: [9], pin: 0) }

        model.write { draft in
            let limit = draft.limit
            draft.items.removeAll { $0 == limit }
            let items = draft.items
            draft.items = draft.extra
            draft.extra = items
            draft.pin = draft.pin.map { $0 + limit }
        }

        #expect(model.state == Listing(items: [9], limit: 2, extra: [1, 3], pin: 2))
    }

    @Test("T5: a transaction that leaves the state alone may run while the draft changes a member")
    func aTransactionThatTouchesNoStateMayOverlapADraftAccess() {
        let model = ListModel()
        model.update { Listing(items: [3, 1, 2], limit: 2) }
        let recorder = StateRecorder(subscribedTo: model)

        model.write { draft in
            draft.items.removeAll { item in
                model.write {}  // a method that ends up changing nothing, say
                return item == 1
            }
        }

        #expect(recorder.history == [Listing(items: [3, 1, 2], limit: 2), Listing(items: [3, 2], limit: 2)])
    }

    @Test("T5: the in-place write returns its body's result")
    func inPlaceWriteReturnsResult() {
        let model = CounterModel()
        let result = model.write { state -> Int in
            state.count = 3
            return state.count * 2
        }
        #expect(result == 6)
        #expect(model.state.count == 3)
    }

    @Test("T6: a transaction that commits an equal state notifies nobody")
    func equalStatesAreNotRedelivered() {
        let model = CounterModel(count: 1)
        let recorder = StateRecorder(subscribedTo: model)
        model.write { model.state.count = 1 }
        model.update { Counter(count: 1) }
        model.write { $0.count += 0 }
        model.write {
            model.state.count = 2
            model.state.count = 1
        }
        #expect(recorder.history == [Counter(count: 1)])
    }

    @Test("T6: a hand-written == decides what counts as a change")
    func customEqualityIsHonoured() {
        struct Tagged: ViewState {
            var value: Int
            var revision: Int
            static func == (lhs: Tagged, rhs: Tagged) -> Bool { lhs.value == rhs.value }
        }
        let model = ViewModel(initialState: Tagged(value: 1, revision: 0))
        let recorder = StateRecorder(subscribedTo: model)
        model.write { $0.revision = 1 }
        model.write { $0.value = 2 }
        #expect(recorder.history.map(\.value) == [1, 2])
    }
}

/// A state whose `==` writes its model: a change made there could not be committed.
struct SelfWritingEquality: ViewState {
    var count = 0
    nonisolated(unsafe) static var model: ViewModel<SelfWritingEquality>?

    static func == (lhs: Self, rhs: Self) -> Bool {
        writeTheModel()
        return lhs.count == rhs.count
    }

    /// Kept out of `==`: inlined there, the write's own comparison would inline `==` again, without end.
    @inline(never)
    static func writeTheModel() {
        model?.write { $0.count += 100 }
    }
}
