import Dispatch
import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

/// The long-lived forms report their task as an operation of the model's effects, as effect runs do: what
/// `settleEffects(of:)` waits for, and `expectEffectsStopped(of:)` checks, is the same for every form.
@Suite("Streams and pollers report to the effects' tracking")
@MainActor
struct EffectFormsTrackingTests {
    @Test("a stream is an operation: settled while it waits for its next element, not while it folds one")
    func streamIsTracked() async throws {
        let scores = Broadcast<Int>()
        let folding = Gate<Bool>()
        let release = DispatchSemaphore(value: 0)
        let model = FeedModel { _, activation in
            activation.effect(.elements(of: scores.stream())) { state, score in
                let points = (try? score.get()) ?? 0
                if points == 2 {
                    folding.open(true)
                    // Bounded, so that a failure cannot hang the suite.
                    _ = release.wait(timeout: .now() + patience)
                }
                state.count += points
            }
        }
        let host = Host(model)
        scores.send(1)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 1)
        let activity = try #require(EffectActivity.of(model), "the stream reports to the model's tracking")
        #expect(activity.running == 1, "waiting for its next element, the stream still runs")

        scores.send(2)
        _ = await folding.wait()
        #expect(!activity.isWaitingForMainQueue, "folding an element, the stream is not parked")
        release.signal()
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 3)

        host.deactivate()
        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(activity.running == 0)
    }

    @Test("a poller is an operation: settled while it sleeps on the clock, not while a poll runs")
    func pollerIsTracked() async throws {
        let clock = TestClock()
        let polling = Gate<Bool>()
        let answer = Gate<Int>()
        let model = FeedModel { _, activation in
            activation.effect(.every(.seconds(1))) { _ in
                polling.open(true)
                return await answer.wait() ?? 0
            } reduce: { state, result in
                if case .success(let count) = result { state.count = count }
            }
        }
        let host = Host(model, clock: clock)
        _ = await polling.wait()
        let activity = try #require(EffectActivity.of(model), "the poller reports to the model's tracking")
        #expect(activity.running == 1)
        #expect(!activity.isWaitingForMainQueue, "a poll that runs is not parked")

        answer.open(5)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 5)
        #expect(activity.running == 1, "sleeping on the clock until the next poll, the poller still runs")

        host.deactivate()
        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(activity.running == 0)
    }
}
