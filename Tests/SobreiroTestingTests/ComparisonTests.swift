import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

// Three small screens as an app would write them, each with the test an app would write for it: a counter, a
// number fact loaded through an injected client, and a timer on the clock the tree provides (the cookbook's
// `TimerViewModel`).

struct CounterState: ViewState {
    var count = 0
}

final class CounterModel: ViewModel<CounterState>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: CounterState())
    }

    func increment() { write { $0.count += 1 } }

    func decrement() { write { $0.count -= 1 } }
}

struct NumberFactState: ViewState {
    var count = 0
    var isLoading = false
    var fact: String?
}

/// Finds a fact about a number: the app gives one that asks a web service, a test one that answers at once.
struct NumberFactClient: Sendable {
    var fetch: @Sendable (Int) async throws -> String
}

final class NumberFactModel: ViewModel<NumberFactState>, ScopedViewModel, @unchecked Sendable {
    let client: NumberFactClient

    init(client: NumberFactClient) {
        self.client = client
        super.init(initialState: NumberFactState())
    }

    func increment() { write { $0.count += 1 } }

    func factButtonTapped() {
        write {
            $0.isLoading = true
            $0.fact = nil
        }
    }

    func didBecomeActive(_ activation: Activation<NumberFactModel>) {
        activation.effect(.when(\.isLoading)) { [client] state in
            try await client.fetch(state.count)
        } reduce: { state, fact in
            state.isLoading = false
            state.fact = (try? fact.get()) ?? "No fact about \(state.count) today."
        }
    }
}

@Suite("The counter, number-fact and timer examples")
@MainActor
struct ComparisonTests {
    @Test("the counter counts up and down")
    func counter() {
        let counter = TestHost(CounterModel())
        counter.model.increment()
        counter.expect(CounterState(count: 1))
        counter.model.decrement()
        counter.expect(CounterState(count: 0))
    }

    @Test("a tap loads a fact about the count, showing that it loads")
    func numberFact() async {
        let facts = TestHost(NumberFactModel(client: NumberFactClient { "\($0) is a good number." }))
        facts.model.increment()
        facts.model.factButtonTapped()
        await facts.settleEffects()
        facts.expect(
            NumberFactState(count: 1),
            NumberFactState(count: 1, isLoading: true),
            NumberFactState(count: 1, fact: "1 is a good number.")
        )
    }

    @Test("the timer ticks every second while it is on")
    func timer() async {
        let timer = TestHost(TimerViewModel())
        timer.model.toggle()
        await timer.clock.advance(by: .seconds(2))
        timer.expect(
            TimerViewState(isTimerOn: true),
            TimerViewState(count: 1, isTimerOn: true),
            TimerViewState(count: 2, isTimerOn: true)
        )
        timer.model.toggle()
        timer.expect(TimerViewState(count: 2))
    }
}
