// Proves: subscribe(view:) for a MainActorStatefulView is main-actor isolated, so a nonisolated caller cannot call it.
import Sobreiro

struct InboxState: ViewState {
    var unread = 0
}

final class InboxViewModel: ViewModel<InboxState>, @unchecked Sendable {
    init() { super.init(initialState: InboxState()) }
}

@MainActor
final class BadgeLabel: MainActorStatefulView {
    var text = ""
    func render(state: InboxState) { text = "\(state.unread)" }
}

// expected-note@+1 {{add '@MainActor' to make global function 'attach(_:to:)' part of global actor 'MainActor'}}
func attach(_ label: BadgeLabel, to model: InboxViewModel) {
    // expected-error@+1 {{call to main actor-isolated instance method 'subscribe(view:)'}}
    model.subscribe(view: label)
}
