import Dispatch
import Sobreiro
import Synchronization
import TestSupport
import Testing

/// The many-subscriber storage is shared with the snapshot a delivery iterates, and the one-subscriber round is
/// delivered from the writer's frame: these pin down how both behave while renders change the model.
@Suite("Snapshot storage and one-subscriber rounds")
struct SnapshotStorageTests {
    @Test("subscribers added and removed on another thread while a render holds the snapshot do not change it")
    func changesDuringASnapshotCopyTheStorage() async {
        let model = CounterModel()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocker = ProbeView<Counter> { state in
            guard state.count == 1 else { return }
            entered.signal()
            _ = release.wait(timeout: .now() + patience)
        }
        let leaving = ProbeView<Counter>()
        let late = ProbeView<Counter>()
        let extras = (0..<20).map { _ in ProbeView<Counter>() }
        model.subscribe(view: blocker)
        model.subscribe(view: leaving)
        let writer = onAnotherThread {
            model.increment()
        }
        await expectSignalled(entered)
        // The deliverer is inside the round for 1, iterating its snapshot. Change the list under it, past a sweep.
        model.unsubscribe(view: leaving)
        model.subscribe(view: late)
        for view in extras { model.subscribe(view: view) }
        for view in extras.dropFirst(5) { model.unsubscribe(view: view) }
        model.increment()
        release.signal()
        await expectSignalled(writer)
        #expect(blocker.history.map(\.count) == [0, 1, 2])
        #expect(!leaving.history.map(\.count).contains(2))
        #expect(late.history.last?.count == 2)
        for view in extras.prefix(5) { #expect(view.history.last?.count == 2) }
        for view in extras.dropFirst(5) { #expect(!view.history.map(\.count).contains(2)) }
        withExtendedLifetime((blocker, late, extras)) { #expect(model.subscriberCount == 7) }
    }

    @Test("a lone subscriber that unsubscribes itself and writes in its render hears no more")
    func loneSubscriberCancelsItself() {
        let model = CounterModel()
        let box = Mutex<StateSubscription?>(nil)
        let view = ProbeView<Counter> { state in
            guard state.count == 1 else { return }
            box.withLock { $0?.cancel() }
            model.increment()
        }
        let token = model.subscribe(view: view)
        box.withLock { $0 = token }
        model.increment()
        #expect(view.history.map(\.count) == [0, 1])
        #expect(model.subscriberCount == 0)
        #expect(model.state.count == 2)
    }

    @Test("one subscriber becomes two and back to one inside renders; each ends on the latest state, in order")
    func oneToTwoAndBackDuringARound() {
        let model = CounterModel()
        let second = ProbeView<Counter>()
        let host = ProbeView<Counter> { state in
            switch state.count {
            case 1:
                model.subscribe(view: second)
                model.increment()
            case 2:
                model.unsubscribe(view: second)
                model.increment()
            case 3:
                model.subscribe(view: second)
                model.increment()
            default: break
            }
        }
        model.subscribe(view: host)
        model.increment()
        #expect(host.history.map(\.count) == [0, 1, 2, 3, 4])
        #expect(isStrictlyIncreasing(second.history.map(\.count)))
        #expect(second.history.last?.count == 4)
        #expect(!second.history.map(\.count).contains(3))
        #expect(host.overlappingRenders == 0 && second.overlappingRenders == 0)
    }

    @Test("a lone subscriber's round is never lost when another thread writes while the deliverer resigns")
    func noLostRoundForALoneSubscriber() async {
        for _ in 0..<300 {
            let model = CounterModel()
            let view = ProbeView<Counter>()
            model.subscribe(view: view)
            await expectCompletes {
                race(times: 4) { _ in
                    for _ in 0..<50 { model.increment() }
                }
            }
            #expect(view.history.last == model.state)
            #expect(isStrictlyIncreasing(view.history.map(\.count)))
            #expect(view.overlappingRenders == 0)
        }
    }

    @Test("a render that writes while it is the only subscriber is delivered after, never inside, its render")
    func loneReentrantWriteIsNotRecursive() {
        let model = CounterModel()
        let depth = Atomic<Int>(0)
        let maxDepth = Atomic<Int>(0)
        let view = ProbeView<Counter> { state in
            let now = depth.add(1, ordering: .relaxed).newValue
            maxDepth.max(now, ordering: .relaxed)
            if state.count < 50 { model.increment() }
            depth.subtract(1, ordering: .relaxed)
        }
        model.subscribe(view: view)
        #expect(maxDepth.load(ordering: .relaxed) == 1)
        #expect(view.history.map(\.count) == Array(0...50))
    }
    @Test("a handler removed while a round's snapshot holds it is released by the deliverer after unlocking")
    func snapshotHoldsTheLastReference() async {
        let model = CounterModel()
        let follower = CounterModel()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let deinits = Atomic<Int>(0)
        let host = ProbeView<Counter> { state in
            guard state.count == 1, state.label.isEmpty else { return }
            entered.signal()
            _ = release.wait(timeout: .now() + patience)
        }
        model.subscribe(view: host)
        do {
            let captured = DeinitAction {
                model.write { $0.label = "from deinit" }
                deinits.add(1, ordering: .relaxed)
            }
            follower.subscribe(to: model) { _ in _ = captured }
        }
        let writer = onAnotherThread {
            model.increment()
        }
        await expectSignalled(entered)
        await expectCompletes { follower.unsubscribe(from: model) }
        release.signal()
        await expectSignalled(writer)
        #expect(deinits.load(ordering: .relaxed) == 1)
        #expect(host.history.last?.label == "from deinit")
    }

    @Test("many subscribers join and leave on other threads while writers deliver; each ends on the latest state")
    func churnWhileDelivering() async {
        for _ in 0..<40 {
            let model = CounterModel()
            let stable = (0..<3).map { _ in ProbeView<Counter>() }
            for view in stable { model.subscribe(view: view) }
            await expectCompletes {
                race(times: 4) { index in
                    if index < 2 {
                        for _ in 0..<100 { model.increment() }
                    } else {
                        for _ in 0..<30 {
                            let views = (0..<4).map { _ in ProbeView<Counter>() }
                            for view in views { model.subscribe(view: view) }
                            for view in views { model.unsubscribe(view: view) }
                        }
                    }
                }
            }
            for view in stable {
                #expect(view.history.last == model.state)
                #expect(isStrictlyIncreasing(view.history.map(\.count)))
                #expect(view.overlappingRenders == 0)
            }
            withExtendedLifetime(stable) { #expect(model.subscriberCount == 3) }
        }
    }
}

/// Runs `action` when the last reference goes.
private final class DeinitAction: Sendable {
    let action: @Sendable () -> Void
    init(_ action: @escaping @Sendable () -> Void) { self.action = action }
    deinit { action() }
}
