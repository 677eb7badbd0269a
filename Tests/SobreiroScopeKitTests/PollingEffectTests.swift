import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

@Suite("F1: polling")
@MainActor
struct PollingEffectTests {
    /// A model that polls every second, with a poll that takes `latency` on the clock, and counts the polls it
    /// wrote back; with `whileLive`, only while its query is "live".
    private func pollModel(
        clock: TestClock,
        polls: RunLog,
        latency: Duration = .zero,
        whileLive: Bool = false
    ) -> FeedModel {
        let live: @Sendable (Feed) -> Bool = { $0.query == "live" }
        let isLive = whileLive ? live : nil
        return FeedModel { _, activation in
            activation.effect(.every(.seconds(1), while: isLive)) { state throws -> Int in
                polls.record("poll", at: clock)
                if latency > .zero { try await clock.sleep(for: latency) }
                return state.count + 1
            } reduce: { state, result in
                if case .success(let count) = result { state.count = count }
            }
        }
    }

    @Test("a poller runs at once, then every interval, and its own writes never cancel it")
    func pollsEveryInterval() async {
        let clock = TestClock()
        let polls = RunLog()
        let model = pollModel(clock: clock, polls: polls)
        let host = Host(model, clock: clock)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 1)

        await clock.advance(by: .seconds(3))

        #expect(polls.all == ["poll@0", "poll@1000", "poll@2000", "poll@3000"])
        #expect(model.state.count == 4)
        host.deactivate()
    }

    @Test("a poller runs while its predicate holds, stops when it no longer does, and starts again when it does")
    func pollsWhilePredicateHolds() async {
        let clock = TestClock()
        let polls = RunLog()
        let model = pollModel(clock: clock, polls: polls, whileLive: true)
        let host = Host(model, clock: clock)
        await settleEffects(of: model, timeout: patientWait)
        #expect(polls.all.isEmpty)

        model.write { $0.query = "live" }
        await settleEffects(of: model, timeout: patientWait)
        await clock.advance(by: .seconds(2))
        model.write { $0.query = "paused" }
        await clock.advance(by: .seconds(5))
        #expect(polls.all == ["poll@0", "poll@1000", "poll@2000"])

        model.write { $0.query = "live" }
        await settleEffects(of: model, timeout: patientWait)
        #expect(polls.all.last == "poll@7000")
        #expect(model.state.count == 4)
        host.deactivate()
    }

    @Test("a poll that runs when the model deactivates is cancelled, writes nothing, and no poll follows")
    func pollEndsWithTheActivation() async {
        let clock = TestClock()
        let polls = RunLog()
        let model = pollModel(clock: clock, polls: polls, latency: .milliseconds(500))
        let host = Host(model, clock: clock)
        await settleEffects(of: model, timeout: patientWait)
        await clock.advance(by: .milliseconds(250))

        host.deactivate()
        await clock.advance(by: .seconds(10))

        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(polls.all == ["poll@0"])
        #expect(model.state.count == 0)
    }

    @Test("a poll that runs when the predicate stops holding writes nothing")
    func pollStopsWithThePredicate() async {
        let clock = TestClock()
        let polls = RunLog()
        let model = pollModel(clock: clock, polls: polls, latency: .milliseconds(500), whileLive: true)
        let host = Host(model, clock: clock)
        model.write { $0.query = "live" }
        await settleEffects(of: model, timeout: patientWait)
        await clock.advance(by: .milliseconds(250))

        model.write { $0.query = "paused" }
        await clock.advance(by: .seconds(10))

        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(polls.all == ["poll@0"])
        #expect(model.state.count == 0)
        host.deactivate()
    }
}
