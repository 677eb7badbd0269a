import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

@Suite("Lifecycle, leaks and cancellation")
@MainActor
struct LifecycleTestingTests {
    @Test("a lifecycle recorder sees the transitions a tree change causes")
    func recordsTransitions() {
        let root = RootScope()
        let screen = Scope()
        let lifecycle = LifecycleRecorder(of: screen)

        root.host(screen)
        lifecycle.expect(.attached, .activated)
        screen.detach()
        lifecycle.expect(.deactivated, .detached)
    }

    @Test("a lifecycle recorder fails on a transition that did not happen")
    func lifecycleMismatch() {
        let root = RootScope()
        let screen = Scope()
        let lifecycle = LifecycleRecorder(of: screen)
        root.host(screen)
        withKnownIssue {
            lifecycle.expect(.attached)
        } matching: { issue in
            text(of: issue) == "expected the transitions [attached], but these happened: [attached, activated]"
        }
    }

    @Test("a cancellation probe proves work ends with its activation")
    func probeEndsWithActivation() {
        let probe = CancellationProbe()
        let root = RootScope()
        let screen = AnonymousBehavior { cancellables in probe.store(in: &cancellables) }
        root.host(screen)
        probe.expectNotCancelled()

        screen.detach()

        probe.expectCancelled()
    }

    @Test("a cancellation probe fails when the work was not cancelled")
    func probeFails() {
        let probe = CancellationProbe()
        withKnownIssue {
            probe.expectCancelled()
        } matching: { issue in
            text(of: issue) == "the work was not cancelled"
        }
    }

    @Test("expectDeallocated passes for a released object and names the type of one kept alive")
    func leakCheck() {
        var released: Scope? = Scope()
        expectDeallocated(&released)
        #expect(released == nil)

        let keeper = RootScope()
        var kept: Scope? = Scope()
        keeper.host(kept!)
        withKnownIssue {
            expectDeallocated(&kept)
        } matching: { issue in
            text(of: issue).hasPrefix("Scope was not deallocated: something still holds it")
        }
    }
}
