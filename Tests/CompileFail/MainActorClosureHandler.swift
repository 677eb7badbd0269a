// Proves: a @MainActor model's unannotated handler closure is @Sendable and nonisolated, so it cannot touch its state.
import Sobreiro

struct CounterState: ViewState {
    var count = 0
}

struct TitleState: ViewState {
    var text = ""
}

final class CounterViewModel: ViewModel<CounterState>, @unchecked Sendable {
    init() { super.init(initialState: CounterState()) }
}

@MainActor
final class TitleViewModel: ViewModel<TitleState>, @unchecked Sendable {
    var lastCount = 0  // expected-note {{mutation of this property is only permitted within the actor}}

    init(counter: CounterViewModel) {
        super.init(initialState: TitleState())
        subscribe(to: counter) { [self] counter in
            // expected-error@+1 {{main actor-isolated property 'lastCount' can not be mutated from a Sendable closure}}
            self.lastCount = counter.count
        }
    }
}
