import ScopeKit
import Testing

@Suite("Lifecycle")
@MainActor
struct LifecycleTests {
    let journal = Journal()
    let root = RootScope()

    init() {
        journal.root = root
    }

    func node(_ name: String) -> Node { Node(name, journal: journal) }

    @Test("S1: detached without a host, attached under an inactive host, active under an active one")
    func statesFollowTheHost() {
        let scope = node("scope")
        let leaf = node("leaf")
        #expect(leaf.state == .detached)
        leaf.attach(to: scope)
        #expect(leaf.state == .attached)
        root.host(scope)
        #expect(scope.state == .active)
        #expect(leaf.state == .active)
        #expect(root.state == .active)
        #expect(journal.violations.isEmpty)
    }

    @Test("S1, S6: a RootScope cannot be attached to anything and stays active")
    func rootCannotBeAttached() {
        let other = RootScope()
        let scope = node("scope")
        #expect(other.attach(to: scope) == .refused(.rootScopeCannotBeAttached))
        #expect(other.attach(to: root) == .refused(.rootScopeCannotBeAttached))
        #expect(other.state == .active)
        #expect(other.detach() == .alreadyDetached)
        #expect(root.children.isEmpty)
        #expect(journal.entries.isEmpty)
    }

    @Test("S2: one node's hooks run in order, with its cancellables cancelled between the deactivation hooks")
    func callbackOrderForOneNode() {
        let leaf = node("leaf")
        leaf.attach(to: root)
        #expect(journal.take() == ["leaf.willAttach", "leaf.willActivate"])
        leaf.detach()
        #expect(
            journal.take() == [
                "leaf.willDeactivate", "leaf.cancel", "leaf.didDeactivate", "leaf.willDetach", "leaf.didDetach",
            ]
        )
    }

    @Test("S2: each activation gets a fresh, empty set, and re-activation calls willActivate again")
    func eachActivationGetsFreshCancellables() {
        let scope = node("scope")
        let leaf = node("leaf")
        var sizes: [Int] = []
        leaf.onActivate = { sizes.append($0.count) }
        scope.host(leaf)
        for _ in 0..<3 {
            root.host(scope)
            scope.detach()
        }
        #expect(sizes == [1, 1, 1])
        #expect(journal.entries.filter { $0 == "leaf.willActivate" }.count == 3)
        #expect(journal.entries.filter { $0 == "leaf.cancel" }.count == 3)
    }

    @Test("S3: parents activate before children, siblings in order; deactivation runs the other way round")
    func orderAcrossThreeLevels() {
        let a = node("a")
        let b = node("b")
        let b1 = node("b1")
        let b2 = node("b2")
        let c = node("c")
        b.host([b1, b2])
        a.host([b, c])
        _ = journal.take()
        root.host(a)
        #expect(
            journal.take().filter { $0.hasSuffix("willActivate") } == [
                "a.willActivate", "b.willActivate", "b1.willActivate", "b2.willActivate", "c.willActivate",
            ]
        )
        a.detach()
        #expect(
            journal.take().filter { $0.hasSuffix("willDeactivate") } == [
                "c.willDeactivate", "b2.willDeactivate", "b1.willDeactivate", "b.willDeactivate", "a.willDeactivate",
            ]
        )
        #expect(journal.violations.isEmpty)
    }

    @Test("S4: detaching an active subtree leaves its root detached and the rest attached; re-attaching reactivates")
    func detachAndReattachSubtree() {
        let a = node("a")
        let b = node("b")
        let leaf = node("leaf")
        b.host(leaf)
        a.host(b)
        root.host(a)
        a.detach()
        #expect([a.state, b.state, leaf.state] == [.detached, .attached, .attached])
        #expect(leaf.host === b)
        root.host(a)
        #expect([a.state, b.state, leaf.state] == [.active, .active, .active])
        #expect(journal.violations.isEmpty)
    }

    @Test("S5: attaching to the current host again, or detaching a detached node, does nothing")
    func repeatedCallsDoNothing() {
        let leaf = node("leaf")
        #expect(leaf.detach() == .alreadyDetached)
        root.host(leaf)
        _ = journal.take()
        #expect(leaf.attach(to: root) == .accepted)
        root.host(leaf)
        #expect(journal.entries.isEmpty)
        #expect(root.children.count == 1)
    }

    @Test("S5: attaching to another host moves the node: a full detach, then an attach")
    func moveBetweenHosts() {
        let first = node("first")
        let second = node("second")
        let leaf = node("leaf")
        root.host([first, second])
        first.host(leaf)
        _ = journal.take()
        leaf.attach(to: second)
        #expect(
            journal.take() == [
                "leaf.willDeactivate", "leaf.cancel", "leaf.didDeactivate", "leaf.willDetach", "leaf.didDetach",
                "leaf.willAttach", "leaf.willActivate",
            ]
        )
        #expect(first.children.isEmpty)
        #expect(second.children.count == 1)
        #expect(leaf.host === second)
    }

    @Test("S6: attaching a scope to itself or to a descendant is refused and changes nothing")
    func cyclesAreRefused() {
        let a = node("a")
        let b = node("b")
        let c = node("c")
        a.host(b)
        b.host(c)
        root.host(a)
        _ = journal.take()
        #expect(a.attach(to: a) == .refused(.cannotAttachToItself))
        #expect(a.attach(to: c) == .refused(.cannotAttachToDescendant))
        #expect(b.attach(to: c) == .refused(.cannotAttachToDescendant))
        #expect(journal.entries.isEmpty)
        #expect(a.host === root && b.host === a && c.host === b)
        #expect([a.state, b.state, c.state] == [.active, .active, .active])
    }

    @Test("evict detaches only the scope's own children")
    func evictOnlyOwnChildren() {
        let first = node("first")
        let second = node("second")
        let leaf = node("leaf")
        root.host([first, second])
        first.host(leaf)
        second.evict(leaf)
        #expect(leaf.host === first)
        first.evict([leaf])
        #expect(leaf.state == .detached)
        #expect(first.children.isEmpty)
    }
}
