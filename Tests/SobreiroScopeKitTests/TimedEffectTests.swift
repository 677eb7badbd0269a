import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

@Suite("F1: debounced, throttled and retried effects")
@MainActor
struct TimedEffectTests {
    /// A model that searches for its query once it has been quiet for 300 ms.
    private func searchModel(clock: TestClock, searches: RunLog) -> FeedModel {
        FeedModel { _, activation in
            activation.effect(.onChange(of: \.query), timing: .debounced(for: .milliseconds(300))) {
                query in
                searches.record(query, at: clock)
                return [query, query + "s"]
            } reduce: { state, result in
                state.results = result.get()
            }
        }
    }

    @Test("a debounced search runs once, for the query the user stopped typing at")
    func debouncedSearch() async {
        let clock = TestClock()
        let searches = RunLog()
        let model = searchModel(clock: clock, searches: searches)
        let host = Host(model, clock: clock)

        for (query, pause) in [("o", 100), ("oa", 100), ("oak", 299)] {
            model.write { $0.query = query }
            await settleEffects(of: model, timeout: patientWait)
            await clock.advance(by: .milliseconds(pause))
        }
        #expect(searches.all.isEmpty, "each keystroke cancelled the search that waited")

        await clock.advance(by: .milliseconds(1))
        #expect(searches.all == ["oak@500"])
        #expect(model.state.results == ["oak", "oaks"])
        host.deactivate()
    }

    @Test("a debounced search that waits when the model deactivates never runs nor writes")
    func debounceEndsWithTheActivation() async {
        let clock = TestClock()
        let searches = RunLog()
        let model = searchModel(clock: clock, searches: searches)
        let host = Host(model, clock: clock)
        model.write { $0.query = "oak" }
        await settleEffects(of: model, timeout: patientWait)

        host.deactivate()
        await clock.advance(by: .seconds(1))

        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(searches.all.isEmpty)
        #expect(model.state.results.isEmpty)
    }

    /// A model whose taps (its `count`) run an operation at most once a second.
    private func tapModel(clock: TestClock, keeping: EffectTiming.ThrottledValue, runs: RunLog) -> FeedModel {
        FeedModel { _, activation in
            activation.effect(
                .onChange(of: \.count),
                timing: .throttled(for: .seconds(1), keeping: keeping),
                strategy: .continueOnNewState
            ) { count in
                runs.record("\(count)", at: clock)
                return count
            } reduce: { state, result in
                state.level = result.get()
            }
        }
    }

    /// Taps at 0, 0, 200, 500 and 1500 ms, then at 3100 ms, advancing to 3600 ms.
    private func tap(_ model: FeedModel, clock: TestClock) async {
        for pause in [0, 200, 300, 1000, 1600] {
            await clock.advance(by: .milliseconds(pause))
            model.write { $0.count += 1 }
            await settleEffects(of: model, timeout: patientWait)
        }
        await clock.advance(by: .milliseconds(500))
    }

    @Test("a throttle keeping the latest runs at once, then once at the end of each interval for the last tap")
    func throttleKeepsTheLatest() async {
        let clock = TestClock()
        let runs = RunLog()
        let model = tapModel(clock: clock, keeping: .latest, runs: runs)
        let host = Host(model, clock: clock)

        await tap(model, clock: clock)

        #expect(runs.all == ["0@0", "3@1000", "4@2000", "5@3100"])
        #expect(model.state.level == 5)
        host.deactivate()
    }

    @Test("a throttle keeping the first runs at once and ignores the taps of the same interval")
    func throttleKeepsTheFirst() async {
        let clock = TestClock()
        let runs = RunLog()
        let model = tapModel(clock: clock, keeping: .first, runs: runs)
        let host = Host(model, clock: clock)

        await tap(model, clock: clock)

        #expect(runs.all == ["0@0", "4@1500", "5@3100"])
        #expect(model.state.level == 5)
        host.deactivate()
    }

    @Test("a throttled run that waits for the end of its interval when the model deactivates never runs")
    func throttleEndsWithTheActivation() async {
        let clock = TestClock()
        let runs = RunLog()
        let model = tapModel(clock: clock, keeping: .latest, runs: runs)
        let host = Host(model, clock: clock)
        await settleEffects(of: model, timeout: patientWait)
        model.write { $0.count = 7 }
        await settleEffects(of: model, timeout: patientWait)

        host.deactivate()
        await clock.advance(by: .seconds(2))

        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(runs.all == ["0@0"])
        #expect(model.state.level == 0)
    }

    /// A model that loads when its query is "go", through an operation that fails `failures` times first.
    private func loadModel(clock: TestClock, failures: Int, retries: Int, attempts: RunLog) -> FeedModel {
        FeedModel { _, activation in
            activation.effect(
                .when { $0.query == "go" && $0.results.isEmpty && $0.failure == nil },
                timing: .retrying(upTo: retries, initialDelay: .seconds(1))
            ) { _ throws(Offline) -> [String] in
                let attempt = attempts.all.count
                attempts.record("try", at: clock)
                guard attempt >= failures else { throw Offline(attempt: attempt) }
                return ["loaded"]
            } reduce: { state, result in
                switch result {
                case .success(let items): state.results = items
                case .failure(let error): state.failure = "\(error)"
                }
            }
        }
    }

    @Test("a retried operation tries again after growing delays and its success is written back")
    func retrySucceeds() async {
        let clock = TestClock()
        let attempts = RunLog()
        let model = loadModel(clock: clock, failures: 2, retries: 3, attempts: attempts)
        let host = Host(model, clock: clock)

        model.write { $0.query = "go" }
        await settleEffects(of: model, timeout: patientWait)
        #expect(attempts.all == ["try@0"])
        await clock.advance(by: .milliseconds(999))
        #expect(attempts.all == ["try@0"])
        await clock.advance(by: .seconds(5))

        #expect(attempts.all == ["try@0", "try@1000", "try@3000"])
        #expect(model.state.results == ["loaded"])
        #expect(model.state.failure == nil)
        host.deactivate()
    }

    @Test("a retried operation that keeps failing gives up after its retries, and reduce gets the failure")
    func retryGivesUp() async {
        let clock = TestClock()
        let attempts = RunLog()
        let model = loadModel(clock: clock, failures: 10, retries: 2, attempts: attempts)
        let host = Host(model, clock: clock)

        model.write { $0.query = "go" }
        await settleEffects(of: model, timeout: patientWait)
        await clock.advance(by: .seconds(60))

        #expect(attempts.all == ["try@0", "try@1000", "try@3000"])
        #expect(model.state.failure == "offline (attempt 2)")
        host.deactivate()
    }

    @Test("a retried operation that waits to try again when the model deactivates stops and writes nothing")
    func retryEndsWithTheActivation() async {
        let clock = TestClock()
        let attempts = RunLog()
        let model = loadModel(clock: clock, failures: 10, retries: 3, attempts: attempts)
        let host = Host(model, clock: clock)
        model.write { $0.query = "go" }
        await settleEffects(of: model, timeout: patientWait)

        host.deactivate()
        await clock.advance(by: .seconds(60))

        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(attempts.all == ["try@0"])
        #expect(model.state.failure == nil)
    }
}
