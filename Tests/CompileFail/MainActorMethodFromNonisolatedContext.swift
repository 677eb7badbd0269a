// Proves: a @MainActor model's unapplied method picks the main-actor overload, which a nonisolated caller cannot call.
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
    init() { super.init(initialState: TitleState()) }

    func counterDidChange(_ counter: CounterState) { update { TitleState(text: "\(counter.count)") } }
}

// expected-note@+1 {{add '@MainActor' to make global function 'connect(_:to:)' part of global actor 'MainActor'}}
func connect(_ title: TitleViewModel, to counter: CounterViewModel) {
    // expected-error@+1 {{call to main actor-isolated instance method 'subscribe(to:onChange:)'}}
    title.subscribe(to: counter, onChange: TitleViewModel.counterDidChange)
}
