import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

struct Browser: ViewState {
    var query = ""
    var results: [String] = []
    var refreshes = 0
    var isLoading = false
    var loaded: String?
    var polls = 0
    var score = 0
}

/// A repository browser with every time-shaped form at once: a debounced search, a throttled refresh button, a
/// load retried with backoff, a poller and a live stream.
final class BrowserModel: ViewModel<Browser>, ScopedViewModel, @unchecked Sendable {
    let clock: TestClock
    let scores: Broadcast<Int>
    let refreshing = EffectInput<Void>()
    let loading = EffectInput<Void>()
    /// The attempts of the load: every other one fails.
    private let attempts = Locked(0)

    init(clock: TestClock, scores: Broadcast<Int>) {
        self.clock = clock
        self.scores = scores
        super.init(initialState: Browser())
    }

    func didBecomeActive(_ activation: Activation<BrowserModel>) {
        let (clock, attempts) = (clock, attempts)
        activation.effect(.onChange(of: \.query), timing: .debounced(for: .milliseconds(300))) { query in
            query.isEmpty ? [] : [query]
        } reduce: { state, result in
            state.results = result.get()
        }
        activation.effect(.input(refreshing), timing: .throttled(for: .seconds(1), keeping: .first)) {
        } reduce: { state, _ in
            state.refreshes += 1
        }
        activation.effect(.input(loading), timing: .retrying(upTo: 2, initialDelay: .seconds(1))) {
            () throws(Offline) -> String in
            let attempt = attempts.withLock { attempts in
                defer { attempts += 1 }
                return attempts
            }
            guard attempt % 2 == 1 else { throw Offline(attempt: attempt) }
            return "repositories"
        } reduce: { state, result in
            state.isLoading = false
            state.loaded = (try? result.get()).map { "\($0)@\(clock.now.offset)" }
        }
        activation.effect(.every(.seconds(1))) { state in
            state.polls + 1
        } reduce: { state, polls in
            state.polls = polls.get()
        }
        activation.effect(.elements(of: scores.stream())) { state, score in
            state.score += (try? score.get()) ?? 0
        }
    }
}

extension BrowserModel {
    func load() {
        write { $0.isLoading = true }
        loading.send()
    }
}

@Suite("F1, F2, F3: every form together")
@MainActor
struct EffectFormsSoakTests {
    @Test("a debounced search, a throttled button, a retry, a poller and a stream, 200 times, the same each time")
    func everyFormTwoHundredTimes() async {
        for round in 0..<200 {
            let clock = TestClock()
            let scores = Broadcast<Int>()
            let model = BrowserModel(clock: clock, scores: scores)
            let host = Host(model, clock: clock)
            await settleEffects(of: model, timeout: patientWait)

            model.write { $0.query = "o" }
            await clock.advance(by: .milliseconds(100))
            model.write { $0.query = "oak" }
            let taps = [model.refreshing.send(), model.refreshing.send()]
            model.load()
            scores.send(2)
            await settleEffects(of: model, timeout: patientWait)
            await clock.advance(by: .seconds(1))

            let expected = Browser(
                query: "oak", results: ["oak"], refreshes: 1, isLoading: false, loaded: "repositories@1.1 seconds",
                polls: 2,
                score: 2
            )
            #expect(model.state == expected, "round \(round)")
            #expect(taps == [.delivered, .throttled], "round \(round)")
            host.deactivate()
            await expectEffectsStopped(of: model, timeout: patientWait)
            #expect(scores.listeners == 0, "round \(round)")
            if model.state != expected { break }
        }
    }
}
