import Dispatch
import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

/// A view that blocks the delivery of the first state `isSlow` picks, until the test lets it go.
final class HoldingView: StatefulView, @unchecked Sendable {
    let isSlow: @Sendable (Feed) -> Bool
    let rendering = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let blocked = Locked(false)

    init(isSlow: @escaping @Sendable (Feed) -> Bool) {
        self.isSlow = isSlow
    }

    func render(state: Feed) {
        guard isSlow(state), !blocked.withLock({ $0 }) else { return }
        blocked.withLock { $0 = true }
        rendering.signal()
        _ = release.wait(timeout: .now() + patience)
    }
}

/// A poller with a predicate writes a poll's result only into a committed state where the predicate holds, even
/// before that state reaches the poller.
@Suite("F1: polling, freshness of a poll's result")
@MainActor
struct PollingFreshnessTests {
    /// A poller whose predicate stopped holding: the state that ends it has committed, but its delivery is held
    /// up by a slow subscriber before the poller. The poll under way must not write into that state.
    @Test("a poll writes nothing back once a committed state no longer satisfies its predicate")
    func pollAfterPredicateStoppedHolding() async {
        let clock = TestClock()
        let poll = Gate<Int>()
        let model = FeedModel(Feed(query: "live")) { _, activation in
            activation.effect(.every(.seconds(1), while: { $0.query == "live" })) { _ in
                await poll.wait() ?? 0
            } reduce: { state, result in
                if case .success(let count) = result { state.count = count }
            }
        }
        // Subscribed before the poller, so it hears each state first.
        let view = HoldingView { $0.query == "paused" }
        let subscription = model.subscribe(view: view)
        let host = Host(model, clock: clock)

        let writer = onAnotherThread { model.write { $0.query = "paused" } }
        await expectSignalled(view.rendering)
        #expect(model.state.query == "paused")
        poll.open(42)
        await settleEffects(of: model, timeout: patientWait)
        let state = model.state
        view.release.signal()
        await expectSignalled(writer)
        #expect(state.count == 0, "the poll wrote \(state.count) into a state whose query is \(state.query)")
        subscription.cancel()
        host.deactivate()
        _ = await stoppedWithin(model)
    }

    /// The predicate holds on the copy of the state that a poll's write checks, but another state commits before
    /// the write's transaction, and its delivery is held up before the poller: the transaction sees the newer
    /// version and checks the predicate again, on the newer state.
    @Test("a poll writes nothing back when a state where its predicate fails commits during the predicate's check")
    func stateCommittedDuringPredicateCheck() async {
        let clock = TestClock()
        let poll = Gate<Int>()
        let check = PredicateHold()
        let model = FeedModel(Feed(query: "live")) { _, activation in
            activation.effect(.every(.seconds(1), while: check.isLive)) { _ in
                let count = await poll.wait() ?? 0
                // The next check is the one of this poll's write: no state reaches the poller meanwhile.
                check.arm()
                return count
            } reduce: { state, result in
                if case .success(let count) = result { state.count = count }
            }
        }
        let view = HoldingView { $0.query == "paused" }
        let subscription = model.subscribe(view: view)
        let host = Host(model, clock: clock)

        poll.open(42)
        await expectSignalled(check.checking)
        let writer = onAnotherThread { model.write { $0.query = "paused" } }
        await expectSignalled(view.rendering)
        check.release.signal()
        await settleEffects(of: model, timeout: patientWait)
        let state = model.state
        view.release.signal()
        await expectSignalled(writer)
        #expect(state.count == 0, "the poll wrote \(state.count) into a state whose query is \(state.query)")
        subscription.cancel()
        host.deactivate()
        _ = await stoppedWithin(model)
    }
}

/// A predicate, "the query is live", whose next check once armed blocks after it has read the state, until the
/// test lets it go.
private final class PredicateHold: Sendable {
    let checking = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let isArmed = Locked(false)

    func arm() {
        isArmed.withLock { $0 = true }
    }

    var isLive: @Sendable (Feed) -> Bool {
        { [self] state in
            let holds = state.query == "live"
            let blocks = isArmed.withLock { isArmed in
                defer { isArmed = false }
                return isArmed
            }
            if blocks {
                checking.signal()
                _ = release.wait(timeout: .now() + patience)
            }
            return holds
        }
    }
}
