import ScopeKit
import Testing

/// Changes requested from a hook are checked when they run, against the tree the changes before them leave (S8).
@Suite("Queued changes")
@MainActor
struct QueuedChangeTests {
    let journal = Journal()
    let root = RootScope()

    init() {
        journal.root = root
    }

    func node(_ name: String) -> Node { Node(name, journal: journal) }

    /// Runs `changes` from inside `trigger`'s `willDetach` and returns the journal from the moment they returned:
    /// the trigger's own change completes (`trigger.didDetach`) before any of them runs.
    func fromHook(_ changes: @escaping @MainActor () -> Void) -> [String] {
        let trigger = node("trigger")
        root.host(trigger)
        trigger.hooks["willDetach"] = { [journal] _ in
            changes()
            journal.record("hook.returned")
        }
        _ = journal.take()
        trigger.detach()
        let entries = journal.take()
        return Array(entries.drop { $0 != "hook.returned" })
    }

    @Test("S8: attach then detach from a hook leaves the node detached, after a full activation and deactivation")
    func attachThenDetach() {
        // Given
        let scope = node("scope")
        let leaf = node("leaf")
        root.host(scope)
        var results: (AttachmentResult, DetachmentResult)?

        // When
        let entries = fromHook {
            results = (leaf.attach(to: scope), leaf.detach())
        }

        // Then
        #expect(leaf.state == .detached)
        #expect(leaf.host == nil)
        #expect(scope.children.isEmpty)
        #expect(
            entries == [
                "hook.returned", "trigger.didDetach",
                "leaf.willAttach", "leaf.willActivate",
                "leaf.willDeactivate", "leaf.cancel", "leaf.didDeactivate", "leaf.willDetach", "leaf.didDetach",
            ]
        )
        guard case .queued(let attachment)? = results?.0, case .queued(let detachment)? = results?.1 else {
            Issue.record("both changes should be queued, got \(String(describing: results))")
            return
        }
        #expect(attachment.outcome == .accepted)
        #expect(detachment.outcome == .detached)
        #expect(journal.violations.isEmpty)
    }

    @Test("S8: detach then attach from a hook moves the node: it leaves its host fully, then joins the other")
    func detachThenAttach() {
        // Given
        let first = node("first")
        let second = node("second")
        let leaf = node("leaf")
        root.host([first, second])
        first.host(leaf)
        var results: (DetachmentResult, AttachmentResult)?

        // When
        let entries = fromHook {
            results = (leaf.detach(), leaf.attach(to: second))
        }

        // Then
        #expect(leaf.host === second)
        #expect(leaf.state == .active)
        #expect(first.children.isEmpty)
        #expect(
            entries == [
                "hook.returned", "trigger.didDetach",
                "leaf.willDeactivate", "leaf.cancel", "leaf.didDeactivate", "leaf.willDetach", "leaf.didDetach",
                "leaf.willAttach", "leaf.willActivate",
            ]
        )
        guard case .queued(let detachment)? = results?.0, case .queued(let attachment)? = results?.1 else {
            Issue.record("both changes should be queued, got \(String(describing: results))")
            return
        }
        #expect(detachment.outcome == .detached)
        #expect(attachment.outcome == .accepted)
        #expect(journal.violations.isEmpty)
    }

    @Test("S8: host then evict from a hook leaves the child out, after a full activation and deactivation")
    func hostThenEvict() {
        // Given
        let scope = node("scope")
        let child = node("child")
        root.host(scope)

        // When
        let entries = fromHook {
            scope.host(child)
            scope.evict(child)
        }

        // Then
        #expect(child.state == .detached)
        #expect(child.host == nil)
        #expect(scope.children.isEmpty)
        #expect(
            entries == [
                "hook.returned", "trigger.didDetach",
                "child.willAttach", "child.willActivate",
                "child.willDeactivate", "child.cancel", "child.didDeactivate", "child.willDetach", "child.didDetach",
            ]
        )
        #expect(journal.violations.isEmpty)
    }

    @Test("S8: evict then host from a hook brings the child back: it leaves fully, then is hosted again")
    func evictThenHost() {
        // Given
        let scope = node("scope")
        let child = node("child")
        root.host(scope)
        scope.host(child)

        // When
        let entries = fromHook {
            scope.evict(child)
            scope.host(child)
        }

        // Then
        #expect(child.host === scope)
        #expect(child.state == .active)
        #expect(scope.children.count == 1)
        #expect(
            entries == [
                "hook.returned", "trigger.didDetach",
                "child.willDeactivate", "child.cancel", "child.didDeactivate", "child.willDetach", "child.didDetach",
                "child.willAttach", "child.willActivate",
            ]
        )
        #expect(journal.violations.isEmpty)
    }

    @Test("S6, S8: a queued attach is not refused for a cycle that the changes queued before it undo")
    func attachLegalOnceTheQueueRuns() {
        // Given outer hosting inner: attaching outer to inner would be a cycle, until inner moves to the root.
        let outer = node("outer")
        let inner = node("inner")
        root.host(outer)
        outer.host(inner)
        var result: AttachmentResult?

        // When
        let entries = fromHook {
            inner.attach(to: root)
            result = outer.attach(to: inner)
        }

        // Then
        #expect(inner.host === root)
        #expect(outer.host === inner)
        #expect([inner.state, outer.state] == [.active, .active])
        #expect(
            entries == [
                "hook.returned", "trigger.didDetach",
                "inner.willDeactivate", "inner.cancel", "inner.didDeactivate", "inner.willDetach", "inner.didDetach",
                "inner.willAttach", "inner.willActivate",
                "outer.willDeactivate", "outer.cancel", "outer.didDeactivate", "outer.willDetach", "outer.didDetach",
                "outer.willAttach", "outer.willActivate",
            ]
        )
        guard case .queued(let pending)? = result else {
            Issue.record("the attachment should be queued, got \(String(describing: result))")
            return
        }
        #expect(pending.outcome == .accepted)
        #expect(journal.violations.isEmpty)
    }

    @Test("S5: outside a hook, detach says whether the node had a host")
    func detachOutsideAHook() {
        let leaf = node("leaf")
        #expect(leaf.detach() == .alreadyDetached)
        root.host(leaf)
        #expect(leaf.detach() == .detached)
        #expect(leaf.detach() == .alreadyDetached)
    }
}
