import ScopeKit
import TestSupport
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Ownership and re-entrancy")
@MainActor
struct OwnershipTests {
    let journal = Journal()
    let root = RootScope()

    init() {
        journal.root = root
    }

    func node(_ name: String) -> Node { Node(name, journal: journal) }

    @Test("S7: releasing the root cancels every active node's work and frees every node")
    func releasingTheRootTearsDown() {
        let journal = Journal()
        let counter = CancelCounter()
        weak var weakRoot: RootScope?
        weak var weakScope: Node?
        weak var weakLeaf: Node?
        do {
            let root = RootScope()
            let scope = Node("scope", journal: journal)
            let leaf = Node("leaf", journal: journal)
            leaf.onActivate = { counter.cancellable().store(in: &$0) }
            scope.host(leaf)
            root.host(scope)
            (weakRoot, weakScope, weakLeaf) = (root, scope, leaf)
            #expect(counter.count == 0)
        }
        #expect(weakRoot == nil)
        #expect(weakScope == nil)
        #expect(weakLeaf == nil)
        #expect(counter.count == 1)
        #expect(journal.entries.filter { $0.hasSuffix(".cancel") }.sorted() == ["leaf.cancel", "scope.cancel"])
    }

    @Test("S7: children never keep their host alive, not even through a hook")
    func childrenDoNotRetainHosts() {
        let journal = Journal()
        let leaf = Node("leaf", journal: journal)
        weak var weakScope: Node?
        do {
            let scope = Node("scope", journal: journal)
            scope.hooks["willActivate"] = { _ in }
            scope.host(leaf)
            weakScope = scope
        }
        #expect(weakScope == nil)
    }

    @Test("S7: a node kept alive elsewhere ends detached, its work cancelled, when its host is freed")
    func orphanEndsDetached() {
        let journal = Journal()
        let orphan = Node("orphan", journal: journal)
        let grandchild = Node("grandchild", journal: journal)
        orphan.host(grandchild)
        do {
            let root = RootScope()
            root.host(orphan)
            // Optimized code may release `root` after its last use: the tree must stand until the block ends.
            withExtendedLifetime(root) {
                #expect(orphan.state == .active)
                _ = journal.take()
            }
        }
        #expect(orphan.state == .detached)
        #expect(orphan.host == nil)
        #expect(grandchild.state == .attached)
        #expect(
            journal.take() == [
                "grandchild.willDeactivate", "grandchild.cancel", "grandchild.didDeactivate",
                "orphan.willDeactivate", "orphan.cancel", "orphan.didDeactivate",
                "orphan.willDetach", "orphan.didDetach",
            ]
        )
    }

    @Test(
        "S8: attach and detach from inside every hook run after it, and the invariants hold after each hook",
        arguments: ["willAttach", "willActivate", "willDeactivate", "didDeactivate", "willDetach", "didDetach"]
    )
    func reentrantChangesFromEveryHook(hook: String) {
        let host = node("host")
        let actor = node("actor")
        let newcomer = node("newcomer")
        let leaver = node("leaver")
        root.host([host, leaver])
        var ran = false
        // Weak: the hook lives in `actor`, which `host` hosts, and names them both.
        actor.hooks[hook] = { [weak host, weak newcomer, weak leaver, journal] actor in
            guard !ran, let host, let newcomer, let leaver else { return }
            ran = true
            newcomer.attach(to: host)
            leaver.detach()
            host.evict(actor)
            journal.record("hook.returned")
        }
        host.host(actor)
        actor.detach()
        let entries = journal.entries
        #expect(ran)
        #expect(journal.violations.isEmpty)
        #expect(newcomer.state == .active)
        #expect(leaver.state == .detached)
        #expect(actor.state == .detached)
        // The changes ran after the hook that asked for them returned.
        let returned = entries.firstIndex(of: "hook.returned")!
        #expect(entries.firstIndex(of: "newcomer.willAttach")! > returned)
        #expect(entries.firstIndex(of: "leaver.willDetach")! > returned)
    }

    @Test("S6, S8, R3: a queued attachment that the changes before it made circular is refused, and says so")
    func queuedCycleIsDropped() {
        let first = node("first")
        let second = node("second")
        let trigger = node("trigger")
        root.host([first, second, trigger])
        var results: [AttachmentResult] = []
        trigger.hooks["willDeactivate"] = { _ in
            results.append(first.attach(to: second))
            results.append(second.attach(to: first))  // a cycle only once the first request has run
        }
        trigger.detach()
        let outcomes = results.map { result -> PendingAttachment.Outcome? in
            guard case .queued(let pending) = result else { return nil }
            return pending.outcome
        }
        #expect(outcomes == [.accepted, .refused(.cannotAttachToDescendant)])
        #expect(first.host === second)
        #expect(second.host === root)
        #expect(journal.violations.isEmpty)
    }

    @Test("S8: a node can move itself to another host from inside its own hook")
    func reentrantSelfMove() {
        let first = node("first")
        let second = node("second")
        let mover = node("mover")
        root.host([first, second])
        mover.hooks["willActivate"] = { [weak first, weak second] node in
            // Weak: the hook lives in `mover`, which `second` ends up hosting.
            if let first, let second, node.host === first { node.attach(to: second) }
        }
        first.host(mover)
        #expect(mover.host === second)
        #expect(mover.state == .active)
        #expect(first.children.isEmpty)
        #expect(journal.violations.isEmpty)
    }

    @Test("S9: whileActiveReceiver keeps work for the activation, and cancels at once when not active")
    func whileActiveReceiver() {
        let root = RootScope()
        let scope = Scope()
        let counter = CancelCounter()

        counter.cancellable().store(in: scope.whileActiveReceiver)
        #expect(counter.count == 1, "stored while detached: cancelled at once")

        root.host(scope)
        counter.cancellable().store(in: scope.whileActiveReceiver)
        #expect(counter.count == 1, "stored while active: kept")
        scope.detach()
        #expect(counter.count == 2, "cancelled at deactivation")
    }

    @Test("S9: a receiver whose behavior is gone cancels at once")
    func receiverOfDeallocatedBehavior() {
        let counter = CancelCounter()
        let receiver = Scope().whileActiveReceiver
        counter.cancellable().store(in: receiver)
        #expect(counter.count == 1)
    }

    @Test("S9: storing into whileActiveReceiver from the scope's own willActivate keeps it for that activation")
    func whileActiveReceiverFromWillActivate() {
        let journal = Journal()
        let root = RootScope()
        let scope = Node("scope", journal: journal)
        let counter = CancelCounter()
        scope.hooks["willActivate"] = { node in
            counter.cancellable().store(in: node.whileActiveReceiver)
        }
        root.host(scope)
        #expect(counter.count == 0)
        scope.detach()
        #expect(counter.count == 1)
        root.host(scope)
        #expect(counter.count == 1)
        scope.detach()
        #expect(counter.count == 2)
    }

    @Test("S10: 100 000 attach/detach cycles free every cancellable and leave the tree as it was")
    func cyclesFreeEverything() async {
        let root = RootScope()
        let scope = Scope()
        root.host(scope)
        let counter = CancelCounter()
        let behavior = AnonymousBehavior { cancellables in
            counter.cancellable().store(in: &cancellables)
        }
        for cycle in 0..<100_000 {
            behavior.attach(to: scope)
            behavior.detach()
            await yieldMainActor(after: cycle)
        }
        #expect(counter.count == 100_000, "every activation's work was cancelled")
        #expect(counter.live == 0, "and released")
        #expect(scope.children.isEmpty)
        #expect(behavior.state == .detached)
    }

    @Test("S10: memory stays flat over 100 000 attach/detach cycles (measured in a process of its own)")
    func cyclesKeepMemoryFlat() async {
        await #expect(processExitsWith: .success) {
            await MainActor.run {
                let root = RootScope()
                let scope = Scope()
                root.host(scope)
                let behavior = AnonymousBehavior { cancellables in
                    AnyCancellable {}.store(in: &cancellables)
                }
                @MainActor func cycle(_ times: Int) {
                    for _ in 0..<times {
                        behavior.attach(to: scope)
                        behavior.detach()
                    }
                }
                cycle(1_000)
                let before = residentBytes()
                cycle(100_000)
                let growth = residentBytes() - before
                // AddressSanitizer quarantines freed memory, so resident memory grows under it whatever we do.
                guard !isAddressSanitizerActive else { return }
                precondition(growth < 1024 * 1024, "memory grew by \(growth) bytes over 100 000 cycles")
            }
        }
    }
}

/// The resident memory of this process, from `/proc` where it exists.
private func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * 4096
}
