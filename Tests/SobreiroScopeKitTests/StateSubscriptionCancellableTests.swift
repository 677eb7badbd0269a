import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Testing

private struct Count: ViewState {
    var value = 0
}

@Suite("State subscriptions in a scope tree")
@MainActor
struct StateSubscriptionCancellableTests {
    @Test("a subscription stored in willActivate ends at deactivation and resyncs at reactivation")
    func subscriptionFollowsActivation() {
        let source = ViewModel(initialState: Count())
        let mirror = ViewModel(initialState: Count())
        let root = RootScope()
        let behavior = AnonymousBehavior { cancellables in
            mirror.subscribe(to: source) { state in mirror.update { state } }.store(in: &cancellables)
        }
        root.host(behavior)
        source.write { $0.value = 1 }
        #expect(mirror.state.value == 1)

        behavior.detach()
        source.write { $0.value = 2 }
        #expect(mirror.state.value == 1, "no updates while inactive")
        #expect(source.subscriberCount == 0)

        root.host(behavior)
        #expect(mirror.state.value == 2, "resynced at reactivation")
    }

    @Test("a main-actor behavior renders a model while active, through the token of subscribe(view:)")
    func behaviorThatIsAViewFollowsActivation() {
        let model = ViewModel(initialState: Count())
        let root = RootScope()
        let screen = CountScreen(model: model)
        root.host(screen)
        model.write { $0.value = 1 }
        screen.detach()
        model.write { $0.value = 2 }
        #expect(screen.rendered == [0, 1])
        #expect(model.subscriberCount == 0)
        root.host(screen)
        #expect(screen.rendered == [0, 1, 2])
    }

    @Test("a token wrapped in AnyCancellable ends the subscription when the cancellable is released")
    func tokenInAnyCancellable() {
        let model = ViewModel(initialState: Count())
        let screen = CountScreen(model: model)
        var cancellable: AnyCancellable? = AnyCancellable(model.subscribe(view: screen))
        #expect(model.subscriberCount == 1)
        _ = cancellable
        cancellable = nil
        #expect(model.subscriberCount == 0)
    }
}

/// A behavior that is also the main-actor view of a model while it is active.
private final class CountScreen: Behavior, MainActorStatefulView {
    let model: ViewModel<Count>
    var rendered: [Int] = []

    init(model: ViewModel<Count>) {
        self.model = model
        super.init()
    }

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        model.subscribe(view: self).store(in: &cancellables)
    }

    func render(state: Count) {
        rendered.append(state.value)
    }
}
