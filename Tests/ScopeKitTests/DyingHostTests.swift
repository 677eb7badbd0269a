import ScopeKit
import TestSupport
import Testing

/// Nodes whose host is being deallocated: the weak `host` already reads `nil`, but the node is still attached, maybe
/// active, until the host's deinit orphans it. Until then it is hosted, and a detach makes it leave.
@Suite("Detaching from a host that is going")
@MainActor
struct DyingHostTests {
    let journal = Journal()
    let root = RootScope()

    init() {
        journal.root = root
    }

    /// Keeps a scope alive until a test lets it go.
    final class Box { var scope: Scope? }

    /// Hosts `trigger`, whose `willActivate` runs `body`: the changes `body` requests wait until it has returned.
    func fromHook(_ body: @escaping @MainActor () -> Void) -> [String] {
        let trigger = Node("trigger", journal: journal)
        trigger.hooks["willActivate"] = { _ in body() }
        _ = journal.take()
        root.host(trigger)
        return journal.take()
    }

    @Test("S7, S8: a queued detach of an attached node whose host is released before it runs detaches it, and says so")
    func queuedDetachOfAttachedOrphan() {
        // Given leaf, attached to a host that only `box` keeps.
        let box = Box()
        let leaf = Node("leaf", journal: journal)
        do {
            let host = Node("host", journal: journal)
            box.scope = host
            host.host(leaf)
        }
        #expect(leaf.state == .attached)
        var result: DetachmentResult?

        // When a hook asks to detach leaf, then lets its host go before the detach runs.
        let entries = fromHook { [box] in
            result = leaf.detach()
            box.scope = nil
        }

        // Then leaf left once, with its hooks, and the request says it did.
        #expect(leaf.state == .detached)
        #expect(leaf.host == nil)
        #expect(entries.filter { $0.hasPrefix("leaf.") } == ["leaf.willDetach", "leaf.didDetach"])
        guard case .queued(let pending)? = result else {
            Issue.record("the detach should be queued, got \(String(describing: result))")
            return
        }
        #expect(pending.outcome == .detached, "journal \(entries)")
        #expect(journal.violations.isEmpty)
    }

    @Test(
        "S7, S8: a queued detach of an active node whose tree is released before it runs deactivates it, then detaches it"
    )
    func queuedDetachOfActiveOrphan() {
        // Given leaf, active in a tree whose root only `box` keeps.
        let box = Box()
        let leaf = Node("leaf", journal: journal)
        do {
            let otherRoot = RootScope()
            box.scope = otherRoot
            otherRoot.host(leaf)
        }
        #expect(leaf.state == .active)
        var result: DetachmentResult?

        // When
        let entries = fromHook { [box] in
            result = leaf.detach()
            box.scope = nil
        }

        // Then
        #expect(leaf.state == .detached)
        #expect(
            entries.filter { $0.hasPrefix("leaf.") } == [
                "leaf.willDeactivate", "leaf.cancel", "leaf.didDeactivate", "leaf.willDetach", "leaf.didDetach",
            ]
        )
        guard case .queued(let pending)? = result else {
            Issue.record("the detach should be queued, got \(String(describing: result))")
            return
        }
        #expect(pending.outcome == .detached, "journal \(entries)")
    }

    @Test("S5, S7: detach() of an active node whose host's isolated deinit is still to run detaches it at once")
    func detachWhileHostDeinitIsScheduled() async {
        // Given leaf, active in a tree whose root only `carrier` keeps.
        final class Carrier: @unchecked Sendable { var scope: Scope? }
        let carrier = Carrier()
        let leaf = Node("leaf", journal: journal)
        do {
            let otherRoot = RootScope()
            carrier.scope = otherRoot
            otherRoot.host(leaf)
        }
        _ = journal.take()

        // When the root is released on another thread while the main actor waits: its isolated deinit is queued
        // for the main actor, and the weak `host` already reads nil.
        #expect(runElsewhereHoldingMainQueue { carrier.scope = nil })
        #expect(leaf.host == nil)
        #expect(leaf.state == .active)
        let result = leaf.detach()

        // Then leaf left at once, and the root's deinit, once it has run, does nothing more to it.
        #expect(result == .detached)
        #expect(leaf.state == .detached)
        await drainMainQueue()
        #expect(leaf.state == .detached)
        #expect(
            journal.take() == [
                "leaf.willDeactivate", "leaf.cancel", "leaf.didDeactivate", "leaf.willDetach", "leaf.didDetach",
            ]
        )
        #expect(leaf.detach() == .alreadyDetached)
    }

    @Test("S7, S8: an evict queued by a scope that everyone else then lets go still runs, and the scope dies")
    func queuedEvictOfDroppedScope() {
        // Given host, active under the root and kept by `box` too, hosting leaf.
        let box = Box()
        let leaf = Node("leaf", journal: journal)
        weak var weakHost: Scope?
        do {
            let host = Node("host", journal: journal)
            box.scope = host
            root.host(host)
            host.host(leaf)
            weakHost = host
        }

        // When a hook evicts leaf, detaches host and lets go of it, all before the evict runs.
        _ = fromHook { [box] in
            (box.scope as? Node)?.evict(leaf)
            box.scope?.detach()
            box.scope = nil
        }

        // Then
        #expect(leaf.state == .detached)
        #expect(leaf.host == nil)
        #expect(weakHost == nil)
        #expect(journal.violations.isEmpty, "\(journal.violations)")
    }
}
