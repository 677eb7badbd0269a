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
            mirror.subscribe(to: source) { state in mirror.write { $0 = state } }.store(in: &cancellables)
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
}
