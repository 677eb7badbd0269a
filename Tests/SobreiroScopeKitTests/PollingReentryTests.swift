import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

/// A polling predicate that writes to its own model runs inside the poller's subscription: its write comes after
/// the predicate's verdict, whose state the poller then follows.
@Suite("F1: polling, a predicate that writes")
@MainActor
struct PollingReentryTests {
    @Test("a predicate that writes during the first render and during a delivery leaves the poller on the newest state")
    func predicateWrites() async {
        let clock = TestClock()
        let polls = RunLog()
        let model = FeedModel { model, activation in
            let isLive: @Sendable (Feed) -> Bool = { [weak model] state in
                // "" and "stop" are turned into "live" from inside the predicate, on the thread that checks it.
                if state.query == "" || state.query == "stop" { model?.write { $0.query = "live" } }
                return state.query == "live"
            }
            activation.effect(.every(.seconds(1), while: isLive)) { state throws -> Int in
                polls.record("poll", at: clock)
                return state.count + 1
            } reduce: { state, result in
                if case .success(let count) = result { state.count = count }
            }
        }
        let host = Host(model, clock: clock)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.query == "live")
        #expect(polls.all == ["poll@0"])

        model.write { $0.query = "stop" }
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.query == "live")
        await clock.advance(by: .seconds(1))
        #expect(polls.all.count >= 2)
        #expect(model.state.count == polls.all.count)
        host.deactivate()
    }
}
