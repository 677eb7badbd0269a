// Proves: the supported isolation patterns typecheck with no diagnostic at all (the positive control).
import Sobreiro

struct CounterState: ViewState {
    var count = 0
}

struct TitleState: ViewState {
    var text = ""
}

final class CounterViewModel: ViewModel<CounterState>, @unchecked Sendable {
    init() { super.init(initialState: CounterState()) }

    func increment() { write { $0.count += 1 } }
}

/// A @MainActor model follows the counter through its own unapplied method, and through a @MainActor closure.
@MainActor
final class TitleViewModel: ViewModel<TitleState>, @unchecked Sendable {
    private(set) var lastCount = 0

    init(counter: CounterViewModel) {
        super.init(initialState: TitleState())
        subscribe(to: counter, onChange: TitleViewModel.counterDidChange)
    }

    func follow(_ counter: CounterViewModel) -> StateSubscription {
        subscribe(to: counter) { @MainActor [weak self] counter in
            self?.lastCount = counter.count
        }
    }

    func counterDidChange(_ counter: CounterState) { update { TitleState(text: "\(counter.count)") } }
}

/// A renderer isolated to the main actor, subscribed from the main actor.
@MainActor
final class TitleLabel: MainActorStatefulView {
    var text = ""
    func render(state: TitleState) { text = state.text }
}

@MainActor
func showTitle(of model: TitleViewModel, in label: TitleLabel) {
    model.subscribe(view: label)
}

/// A nonisolated model follows the counter with a @Sendable closure and with an unapplied method.
final class SummaryViewModel: ViewModel<TitleState>, @unchecked Sendable {
    init(counter: CounterViewModel, other: CounterViewModel) {
        super.init(initialState: TitleState())
        subscribe(to: counter) { @Sendable [weak self] counter in
            self?.update { TitleState(text: "count: \(counter.count)") }
        }
        subscribe(to: other, onChange: SummaryViewModel.otherDidChange)
    }

    func otherDidChange(_ other: CounterState) { update { TitleState(text: "other: \(other.count)") } }
}

/// A view of a projected value that is not a ViewState: a bare Int, on the main actor.
@MainActor
final class CountLabel: MainActorStatefulView {
    var text = ""
    func render(state: Int) { text = "\(state)" }
}

@MainActor
func showCount(of counter: CounterViewModel, in label: CountLabel) -> StateSubscription {
    counter.map(\.count).subscribe(view: label)
}

/// A model and a projection are one kind of source: code written once for `StateSource` takes either, and a
/// @MainActor model follows a projection through its own method as it follows a model.
@MainActor
final class BadgeViewModel: ViewModel<TitleState>, @unchecked Sendable {
    init(counter: CounterViewModel) {
        super.init(initialState: TitleState())
        subscribe(to: counter.map(\.count), onChange: BadgeViewModel.countDidChange)
    }

    func countDidChange(_ count: Int) { update { TitleState(text: "\(count)") } }
}

func firstValue<Value>(of source: StateSource<Value>) async -> Value? {
    var iterator = source.states.makeAsyncIterator()
    return await iterator.next()
}

func firstValues(of counter: CounterViewModel) async -> (CounterState?, Int?) {
    (await firstValue(of: counter), await firstValue(of: counter.map(\.count)))
}
