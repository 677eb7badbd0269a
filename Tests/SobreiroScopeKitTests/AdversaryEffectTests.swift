import Dispatch
import ScopeKit
import Sobreiro
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
        _ = release.wait(timeout: .now() + 20)
    }
}

/// Known defects of the effect forms, each reproduced deterministically and wrapped as a known issue.
@Suite("Effects: known defects")
@MainActor
struct AdversaryEffectTests {
    /// Ending a stream (or poller) takes the model's lock without a transaction of its own: with a state whose `==`
    /// is not reflexive (NaN), a transaction would commit a new version, a "change" made by the deactivation itself.
    @Test("ending a stream effect commits no new state, even when the state is not equal to itself")
    func endingAStreamCommitsNothing() async {
        let model = NaNGaugeModel(NaNGauge(reading: .nan)) { activation in
            activation.effect(consuming: AsyncStream<Int> { _ in }) { (state: inout NaNGauge, _: Int) in
                state.answers.append("element")
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        await settleEffects(of: model)
        let before = model.versionedState.version
        behavior.detach()
        let after = model.versionedState.version
        #expect(after == before, "the deactivation committed version \(after) over \(before)")
        _ = await stoppedWithin(seconds: 5, model)
    }

    /// A trigger's reduce that cancels its own trigger (a failure that gives up) runs inside the write-back's
    /// `write { $0 … }`; the cancel ends the runner, which sees its own claimed write-back committing, on this
    /// thread: it must not open a transaction of its own there, which would trap.
    @Test("cancelling a trigger from its own effect's reduce does not stop the program")
    func cancelFromOwnReduce() async {
        let child = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let done = DispatchSemaphore(value: 0)
            let model = await MainActor.run {
                let trigger = EffectTrigger<Void>()
                let model = FeedModel { _, activation in
                    activation.effect(on: trigger) {
                        1
                    } reduce: { state, _ in
                        trigger.cancel()
                        state.count = 1
                        done.signal()
                    }
                }
                let host = Host(model)
                trigger.send()
                return (model, host)
            }
            _ = done.wait(timeout: .now() + 10)
            try? await Task.sleep(for: .milliseconds(200))
            withExtendedLifetime(model) {}
        }
        let stderr = String(decoding: child?.standardErrorContent ?? [], as: UTF8.self)
        #expect(!stderr.contains("A transaction nested in write { $0 … } changed"), "\(stderr.prefix(300))")
    }

    /// Detaching a behavior from inside a transaction of its own model (`write { $0 … }`) ends a stream effect,
    /// whose end must not open a transaction of its own there, which would trip the `write { $0 … }` precondition.
    @Test("detaching a model from inside its own write { $0 … } with a stream effect does not stop the program")
    func detachInsideOwnWrite() async {
        let child = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let model = FeedModel { _, activation in
                    activation.effect(consuming: AsyncStream<Int> { _ in }) { (state: inout Feed, element: Int) in
                        state.count = element
                    }
                }
                let host = Host(model)
                model.write { state in
                    state.query = "closing"
                    host.deactivate()
                }
            }
        }
        let stderr = String(decoding: child?.standardErrorContent ?? [], as: UTF8.self)
        #expect(!stderr.contains("A transaction nested in write { $0 … } changed"), "\(stderr.prefix(300))")
    }

    /// A poller whose predicate stopped holding: the state that ends it has committed, but its delivery is held
    /// up by a slow subscriber before the poller. The poll under way then writes into a state where the predicate
    /// does not hold, which `effect(when:)` prevents by checking versions in its write-back transaction.
    @Test("a poll writes nothing back once a committed state no longer satisfies its predicate")
    func pollAfterPredicateStoppedHolding() async {
        let clock = TestClock()
        let poll = Gate<Int>()
        let model = FeedModel(Feed(query: "live")) { _, activation in
            activation.effect(every: .seconds(1), clock: clock, while: { $0.query == "live" }) { _ in
                await poll.wait() ?? 0
            } reduce: { state, result in
                if case .success(let count) = result { state.count = count }
            }
        }
        // Subscribed before the poller, so it hears each state first.
        let view = HoldingView { $0.query == "paused" }
        let subscription = model.subscribe(view: view)
        let host = Host(model)

        let writer = onAnotherThread { model.write { $0.query = "paused" } }
        #expect(view.rendering.wait(timeout: .now() + 20) == .success)
        #expect(model.state.query == "paused")
        poll.open(42)
        await settleEffects(of: model)
        let state = model.state
        view.release.signal()
        expectSignalled(writer)
        withKnownIssue("EffectLoop's writes check the run, not the predicate, under the model's lock") {
            #expect(state.count == 0, "the poll wrote \(state.count) into a state whose query is \(state.query)")
        }
        subscription.cancel()
        host.deactivate()
        await stoppedWithin(seconds: 5, model).ignore()
    }
}

extension Bool {
    fileprivate func ignore() {}
}
