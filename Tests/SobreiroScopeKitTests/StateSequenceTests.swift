import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import TestSupport
import Testing

@Suite("B4: states as an asynchronous sequence")
@MainActor
struct StateSequenceTests {
    @Test("B4: an iterator gets the current state, then each change, and keeps only the newest while busy")
    func newestOnly() async {
        let model = ViewModel(initialState: Feed())
        var iterator = model.states.makeAsyncIterator()
        #expect(await iterator.next()?.count == 0)

        model.write { $0.count = 1 }
        model.write { $0.count = 2 }
        model.write { $0.count = 3 }

        #expect(await iterator.next()?.count == 3, "the states in between were replaced by the newest")
        model.write { $0.count = 4 }
        #expect(await iterator.next()?.count == 4)
    }

    @Test("B4: the sequence of an activation finishes when the behavior deactivates, after its last state")
    func finishesOnDeactivation() async {
        var sequence: StateSequence<Feed>?
        let model = FeedModel { _, activation in sequence = activation.states() }
        let root = RootScope()
        let behavior = Behavior()
        behavior.bind(model)
        root.host(behavior)
        var iterator = sequence!.makeAsyncIterator()
        #expect(await iterator.next()?.count == 0)
        model.write { $0.count = 1 }

        behavior.detach()

        #expect(await iterator.next()?.count == 1, "the state it held is handed out first")
        #expect(await iterator.next() == nil)
        var late = sequence!.makeAsyncIterator()
        #expect(await late.next() == nil, "an iterator made after the end finishes at once")
        #expect(model.subscriberCount == 0)
    }

    @Test("B4: releasing a tree while it is active finishes the sequences of its activations")
    func finishesWhenTheTreeIsReleased() async {
        var sequence: StateSequence<Feed>?
        let model = FeedModel { _, activation in sequence = activation.states() }
        var iterator: StateSequence<Feed>.Iterator
        do {
            let root = RootScope()
            let behavior = Behavior()
            behavior.bind(model)
            root.host(behavior)
            iterator = sequence!.makeAsyncIterator()
            #expect(await iterator.next()?.count == 0)
        }

        let remaining = iterator
        let next = await withDeadline {
            var remaining = remaining
            return await remaining.next()
        }
        #expect(next == .some(nil), "finished: the model lives on, but its activation is gone")
        #expect(model.subscriberCount == 0)
    }

    @Test("B4: iterators made and dropped during an activation leave nothing behind in it")
    func droppedIteratorsLeaveTheActivation() async {
        // Given an active bound model.
        var activation: Activation<FeedModel>?
        let model = FeedModel { _, current in activation = current }
        let root = RootScope()
        let behavior = Behavior()
        behavior.bind(model)
        root.host(behavior)
        let sequence = activation!.states()

        // When 10 000 iterators are made and dropped, and one is kept.
        for iterator in 0..<10_000 {
            _ = sequence.makeAsyncIterator()
            await yieldMainActor(after: iterator)
        }
        let kept = sequence.makeAsyncIterator()

        // Then only the kept iterator waits for the activation's end.
        #expect(activation!.ending.pendingActionCount == 1)
        #expect(model.subscriberCount == 1, "the dropped iterators' subscriptions ended too")
        withExtendedLifetime(kept) {}
        // The activation holds the model, whose hook holds the variable that holds the activation.
        behavior.detach()
        activation = nil
    }

    @Test("B4: a for-await loop over an activation's states ends with the activation")
    func loopEndsWithActivation() async {
        let seen = Locked<[Int]>([])
        let loopEnded = Gate<Bool>()
        let model = FeedModel { _, activation in
            let states = activation.states()
            Task.detached {
                for await state in states { seen.withLock { $0.append(state.count) } }
                loopEnded.open(true)
            }
        }
        let root = RootScope()
        let behavior = Behavior()
        behavior.bind(model)
        root.host(behavior)
        model.write { $0.count = 1 }
        _ = await firstState(of: model) { _ in seen.withLock { $0.last } == 1 }

        behavior.detach()

        #expect(await withDeadline { await loopEnded.wait() } == true)
        #expect(seen.withLock { $0 }.last == 1)
    }

    @Test("B4: an iterator finishes once its model is deallocated, and does not keep it alive")
    func finishesWhenModelIsReleased() async {
        var model: ViewModel<Feed>? = ViewModel(initialState: Feed())
        weak let weakModel = model
        var iterator = model!.states.makeAsyncIterator()
        #expect(await iterator.next()?.count == 0)

        model = nil

        #expect(weakModel == nil)
        #expect(await iterator.next() == nil)
    }

    @Test("B4: a cancelled consumer's iterator finishes and unsubscribes")
    func cancelledConsumer() async {
        let model = ViewModel(initialState: Feed())
        let started = Gate<Bool>()
        let consumer = Task.detached {
            var count = 0
            for await _ in model.states {
                count += 1
                started.open(true)
            }
            return count
        }
        _ = await started.wait()
        consumer.cancel()
        #expect(await consumer.value == 1)
        #expect(model.subscriberCount == 0)
    }

    /// Copies of `iterator` waiting on one main-actor task each, in order: each task has registered its wait
    /// before the next one starts, since it stays on the main actor until it suspends.
    func awaitCopies(
        of iterator: StateSequence<Feed>.Iterator,
        count: Int
    ) async -> (tasks: [Task<Void, Never>], received: [Gate<Int?>]) {
        var tasks: [Task<Void, Never>] = []
        var received: [Gate<Int?>] = []
        for _ in 0..<count {
            let waiting = Gate<Bool>()
            let result = Gate<Int?>()
            tasks.append(
                Task { @MainActor in
                    var copy = iterator
                    waiting.open(true)
                    result.open(await copy.next(isolation: MainActor.shared)?.count)
                }
            )
            received.append(result)
            _ = await waiting.wait()
        }
        return (tasks, received)
    }

    @Test("B4: copies of one iterator awaited on several tasks share its states, the longest waiting first")
    func copiesShareStates() async {
        // Given an iterator past its first state, and two copies of it waiting.
        let model = ViewModel(initialState: Feed())
        var iterator = model.states.makeAsyncIterator()
        #expect(await iterator.next()?.count == 0)
        let (_, received) = await awaitCopies(of: iterator, count: 2)

        // When two states commit.
        model.write { $0.count = 1 }
        model.write { $0.count = 2 }

        // Then each copy resumes, with one state each, in the order they began waiting.
        #expect(await withDeadline { await received[0].wait() } == .some(.some(1)))
        #expect(await withDeadline { await received[1].wait() } == .some(.some(2)))
    }

    enum Ending: CaseIterable, Sendable {
        case cancellingOneTask, releasingTheModel
    }

    @Test(
        "B4: when the iterator finishes, every copy waiting on it receives nil",
        arguments: Ending.allCases
    )
    func copiesAllFinish(ending: Ending) async {
        // Given an iterator past its first state, and three copies of it waiting.
        var model: ViewModel<Feed>? = ViewModel(initialState: Feed())
        var iterator = model!.states.makeAsyncIterator()
        #expect(await iterator.next()?.count == 0)
        let (tasks, received) = await awaitCopies(of: iterator, count: 3)

        // When the iterator finishes.
        switch ending {
        case .cancellingOneTask: tasks[0].cancel()
        case .releasingTheModel: model = nil
        }

        // Then every copy resumes with nil.
        for (index, gate) in received.enumerated() {
            let value = await withDeadline { await gate.wait() }
            #expect(value == .some(.some(nil)), "copy \(index) should finish")
        }
        #expect(model == nil || model?.subscriberCount == 0)
    }

    @Test("B4: concurrent consumers each see increasing states and end on the latest")
    func concurrentConsumers() async {
        let model = ViewModel(initialState: Feed())
        let last = 2_000
        let consumers = (0..<4).map { _ in
            let iterator = model.states.makeAsyncIterator()
            return Task.detached {
                var iterator = iterator
                var seen: [Int] = []
                while let state = await iterator.next() {
                    seen.append(state.count)
                    if state.count == last { break }
                }
                return seen
            }
        }
        await Task.detached {
            for count in 1...last { model.write { $0.count = count } }
        }.value

        for consumer in consumers {
            let seen = await withDeadline { await consumer.value } ?? []
            #expect(seen.last == last)
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "in order, never an older state")
        }
    }
}
