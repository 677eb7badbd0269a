import Dispatch
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// Calls back into a model from its `deinit`, as a handler's captured object may.
private final class CallsBackOnDeinit: Sendable {
    let action: @Sendable () -> Void
    init(_ action: @escaping @Sendable () -> Void) { self.action = action }
    deinit { action() }
}

/// What a released object's `deinit` does to the model it was subscribed to.
enum CallBack: String, CaseIterable, Sendable {
    case cancelToken, subscribe, write, writeOnAnotherThread

    /// An action on `model` for a `deinit`; it keeps a view alive in `views` so that a subscribe lasts.
    func action(on model: CounterModel, views: Locked<[ProbeView<Counter>]>) -> @Sendable () -> Void {
        switch self {
        case .cancelToken:
            let other = model.subscribe(view: ProbeView<Counter>())
            return { other.cancel() }
        case .subscribe:
            return {
                let view = ProbeView<Counter>()
                views.withLock { $0.append(view) }
                model.subscribe(view: view)
            }
        case .write:
            return { model.write { $0.label = "from deinit" } }
        case .writeOnAnotherThread:
            // Waits for a write on another thread, which needs the lock even inside a transaction of this thread.
            return {
                // A thread of its own: a dispatch worker may wait behind a pool that other tests hold.
                _ = onAnotherThread { model.write { $0.label = "from another thread" } }
                    .wait(timeout: .now() + patience)
            }
        }
    }
}

/// No entry that a model lets go of is released under its lock: each `deinit` below calls back into the model,
/// which would deadlock on the lock. Each path runs on another thread with a time limit, so a regression fails.
@Suite("Releasing entries outside the lock")
struct ReleaseTests {
    let model = CounterModel()
    let views = Locked<[ProbeView<Counter>]>([])

    @Test("R4: unsubscribe(from:) releases the handlers after unlocking", arguments: CallBack.allCases)
    func unsubscribeFromModel(callBack: CallBack) async {
        let follower = CounterModel()
        do {
            let captured = CallsBackOnDeinit(callBack.action(on: model, views: views))
            follower.subscribe(to: model) { _ in _ = captured }
            follower.subscribe(to: model.map(\.count)) { _ in _ = captured }
        }
        await expectCompletes { [model] in follower.unsubscribe(from: model) }
    }

    @Test("R4: unsubscribe(view:) releases the entry after unlocking", arguments: CallBack.allCases)
    func unsubscribeView(callBack: CallBack) async {
        let view = ProbeView<Counter>()
        do {
            let captured = CallsBackOnDeinit(callBack.action(on: model, views: views))
            _ = model.subscription(of: view, replacingLive: false) { _, _, _, _ in _ = captured }
        }
        await expectCompletes { [model] in model.unsubscribe(view: view) }
    }

    @Test(
        "R4: a token cancelled inside a transaction releases its entry after the transaction",
        arguments: CallBack.allCases)
    func cancelInsideTransaction(callBack: CallBack) async {
        let follower = CounterModel()
        do {
            let captured = CallsBackOnDeinit(callBack.action(on: model, views: views))
            follower.subscribe(to: model) { _ in _ = captured }
        }
        await expectCompletes { [model] in
            model.write {
                model.state.count += 1
                follower.unsubscribe(from: model)
            }
        }
    }

    /// Subscribing again keeps the live subscription (see `StateSource`): the handler passed the second time is the
    /// one let go of.
    @Test("R4: subscribing again releases the handler it does not keep after unlocking", arguments: CallBack.allCases)
    func subscribeAgain(callBack: CallBack) async {
        let follower = CounterModel()
        follower.subscribe(to: model) { _ in }
        let released = Atomic<Bool>(false)
        let action = callBack.action(on: model, views: views)
        await expectCompletes { [model] in
            let captured = CallsBackOnDeinit {
                action()
                released.store(true, ordering: .relaxed)
            }
            follower.subscribe(to: model) { _ in _ = captured }
        }
        let wasReleased = released.load(ordering: .relaxed)
        #expect(wasReleased, "the handler not kept was let go of")
    }

    @Test("R4: pruning a dead follower or view releases its handler after unlocking", arguments: CallBack.allCases)
    func pruning(callBack: CallBack) async {
        do {
            let follower = CounterModel()
            let view = ProbeView<Counter>()
            let captured = CallsBackOnDeinit(callBack.action(on: model, views: views))
            follower.subscribe(to: model) { _ in _ = captured }
            _ = model.subscription(of: view, replacingLive: false) { _, _, _, _ in _ = captured }
        }
        await expectCompletes { [model] in model.write { $0.count += 1 } }
    }

    @Test(
        "R4: pruning in a later round of one delivery releases the dead handler after unlocking",
        arguments: CallBack.allCases)
    func pruningInLaterRound(callBack: CallBack) async {
        let action = callBack.action(on: model, views: views)
        // A render subscribes a follower that dies at once, then writes: the next round meets the dead follower,
        // whose entry no earlier snapshot of the list holds, so pruning drops its last reference.
        let host = ProbeView<Counter> { [model] state in
            guard state.count == 1 else { return }
            do {
                let follower = CounterModel()
                let captured = CallsBackOnDeinit(action)
                follower.subscribe(to: model) { _ in _ = captured }
            }
            model.write { $0.count = 2 }
        }
        model.subscribe(view: host)
        await expectCompletes { [model] in model.write { $0.count = 1 } }
        #expect(host.history.map(\.count).starts(with: [0, 1, 2]))
    }

    @Test("R4: the sweep of dead entries when a subscriber joins releases them after unlocking")
    func sweepOnInsert() async {
        let views = (0..<20).map { _ in ProbeView<Counter>() }
        for view in views { model.subscribe(view: view) }
        do {
            let follower = CounterModel()
            let captured = CallsBackOnDeinit(CallBack.cancelToken.action(on: model, views: self.views))
            follower.subscribe(to: model) { _ in _ = captured }
        }
        let late = (0..<20).map { _ in ProbeView<Counter>() }
        await expectCompletes { [model] in
            for view in late { model.subscribe(view: view) }
        }
        withExtendedLifetime(views) {}
    }
}
