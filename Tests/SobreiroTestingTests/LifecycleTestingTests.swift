import Dispatch
import Foundation
import ScopeKit
import Sobreiro
import SobreiroPrimitives
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

@Suite("Lifecycle recorder: exhaustiveness and start")
@MainActor
struct LifecycleRecorderTests {
    @Test("transitions left unasserted fail the test that released the recorder")
    func unassertedTransitionsFail() {
        let root = RootScope()
        let screen = Scope()
        withKnownIssue {
            let lifecycle = LifecycleRecorder(of: screen)
            root.host(screen)
            lifecycle.expect(.attached, .activated)
            screen.detach()
        } matching: { issue in
            text(of: issue) == "transitions that happened but were never asserted: [deactivated, detached]"
        }
    }

    @Test("transitions left unasserted fail a test that is not isolated to the main actor")
    nonisolated func unassertedTransitionsFailOffTheMainActor() async {
        await withKnownIssue {
            await MainActor.run {
                let root = RootScope()
                let screen = Scope()
                let lifecycle = LifecycleRecorder(of: screen)
                root.host(screen)
                lifecycle.expect(.attached, .activated)
                screen.detach()
            }
        } matching: { issue in
            text(of: issue).hasPrefix("transitions that happened but were never asserted")
        }
    }

    @Test("a recorder made for an active behavior records only the transitions after it")
    func startsFromTheCurrentState() {
        let root = RootScope()
        let screen = Scope()
        root.host(screen)

        let lifecycle = LifecycleRecorder(of: screen)
        #expect(lifecycle.events == [])
        screen.detach()
        lifecycle.expect(.deactivated, .detached)
        root.host(screen)
        lifecycle.expect(.attached, .activated)
        screen.detach()
        lifecycle.expect(.deactivated, .detached)
    }

    @Test("a recorder made in the behavior's own willActivate starts from the active state")
    func madeDuringActivation() {
        let root = RootScope()
        let screen = SelfRecordingBehavior()
        root.host(screen)

        #expect(screen.lifecycle?.events == [])
        screen.detach()
        screen.lifecycle?.expect(.deactivated, .detached)
    }

    @Test("a recorder released on another thread while its behavior changes")
    func releasedOffTheMainThread() async {
        for _ in 0..<50 {
            let root = RootScope()
            let screen = Scope()
            let box = Locked<LifecycleRecorder?>(LifecycleRecorder(of: screen))
            let released = Locked<CheckedContinuation<Void, Never>?>(nil)
            let isReleased = Locked(false)
            Thread.detachNewThread {
                // Taken out under the lock and let go of after it: the recorder's deinit runs outside.
                var recorder: LifecycleRecorder?
                box.withLock { swap(&$0, &recorder) }
                recorder = nil
                let waiting = released.withLock { waiting in
                    isReleased.withLock { $0 = true }
                    defer { waiting = nil }
                    return waiting
                }
                waiting?.resume()
            }
            for _ in 0..<20 {
                root.host(screen)
                screen.detach()
            }
            await withCheckedContinuation { continuation in
                let isDone = released.withLock { waiting in
                    guard !isReleased.withLock({ $0 }) else { return true }
                    waiting = continuation
                    return false
                }
                if isDone { continuation.resume() }
            }
        }
    }
}

/// A behavior that starts recording its own lifecycle as it activates.
private final class SelfRecordingBehavior: Behavior {
    var lifecycle: LifecycleRecorder?

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        lifecycle = lifecycle ?? LifecycleRecorder(of: self)
    }
}
