import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Testing

private struct Session: ViewState {
    var selection: String?
}

/// A routed child that runs `onLeave` from its `willDetach` hook.
private final class Leaving: Behavior {
    let item: String
    let onLeave: @MainActor () -> Void

    init(item: String, onLeave: @escaping @MainActor () -> Void = {}) {
        self.item = item
        self.onLeave = onLeave
    }

    override func willDetach() { onLeave() }
}

/// The items of the routed children a scope hosts, in order.
@MainActor
private func items(of scope: Scope) -> [String] {
    scope.children.map { ($0 as? Leaving)?.item ?? "?" }
}

// Showing a value runs user code before the new child is hosted: the builder, and the old child's hooks as the
// route evicts it. When that code deactivates the router, or deactivates and reactivates it, the show that ran it
// has been overtaken and must host nothing.
@Suite("Routes changed while a value is shown")
@MainActor
struct RouteOvertakenTests {
    @Test("R5, S8: the old child's hook detaches the router mid-show: nothing is hosted under the inactive router")
    func routerDetachedByOldChild() {
        // Given a router whose child for "a", as it leaves, detaches the router itself.
        let session = ViewModel(initialState: Session(selection: "a"))
        let router = Scope()
        // Weakly: the router keeps its route, and the route its builder.
        router.hostChild(following: session.map(\.selection)) { [weak router] selection in
            selection.map { item in Leaving(item: item) { if item == "a" { router?.detach() } } }
        }
        let root = RootScope()
        root.host(router)
        #expect(items(of: router) == ["a"])

        // When the selection moves on: the route evicts "a", whose hook detaches the router, then would host "b".
        session.write { $0.selection = "b" }

        // Then the inactive router hosts nothing, and hosts "b" alone once it is active again.
        #expect(router.state == .detached)
        #expect(router.children.isEmpty, "an inactive router still hosts \(items(of: router))")
        root.host(router)
        #expect(items(of: router) == ["b"])
        #expect(router.children.allSatisfy { $0.state == .active })
    }

    @Test("R5, S8: the old child's hook detaches and re-hosts the router mid-show: one child, the latest, active")
    func routerReactivatedByOldChild() {
        // Given a router whose child for "a", as it leaves, detaches the router and hosts it again.
        let session = ViewModel(initialState: Session(selection: "a"))
        let router = Scope()
        let root = RootScope()
        var built: [String] = []
        router.hostChild(following: session.map(\.selection)) { [weak router, weak root] selection in
            built += selection.map { [$0] } ?? []
            return selection.map { item in
                Leaving(item: item) {
                    guard item == "a", let router, let root else { return }
                    router.detach()
                    root.host(router)
                }
            }
        }
        root.host(router)

        // When the selection moves on: within the evict of "a", the router deactivates, then activates again and
        // its new activation shows "b" on its own.
        session.write { $0.selection = "b" }

        // Then the new activation's child is the only one: the overtaken show hosted nothing more.
        #expect(router.state == .active)
        #expect(items(of: router) == ["b"], "built \(built)")
        #expect(router.children.allSatisfy { $0.state == .active })

        // And the route still follows the model, replacing that child.
        session.write { $0.selection = "c" }
        #expect(items(of: router) == ["c"])
    }

    @Test("R5: the child builder detaches the router: the child it returns is not hosted")
    func routerDetachedByBuilder() {
        // Given a router whose builder, for "b", detaches the router before returning the child.
        let session = ViewModel(initialState: Session(selection: "a"))
        let router = Scope()
        router.hostChild(following: session.map(\.selection)) { [weak router] selection in
            if selection == "b" { router?.detach() }
            return selection.map { Leaving(item: $0) }
        }
        let root = RootScope()
        root.host(router)

        // When
        session.write { $0.selection = "b" }

        // Then
        #expect(router.state == .detached)
        #expect(router.children.isEmpty, "an inactive router still hosts \(items(of: router))")
    }

    @Test("S8: the old child's hook writes the routed model mid-show: one child, the latest")
    func writeByOldChild() {
        let session = ViewModel(initialState: Session(selection: "a"))
        let router = Scope()
        router.hostChild(following: session.map(\.selection)) { selection in
            selection.map { item in Leaving(item: item) { if item == "a" { session.write { $0.selection = "c" } } } }
        }
        let root = RootScope()
        root.host(router)

        session.write { $0.selection = "b" }

        #expect(items(of: router) == ["c"])
        #expect(router.children.allSatisfy { $0.state == .active })
    }

    @Test(
        "S7: the last reference to the tree goes from the child builder mid-show: the router dies, and later values are ignored"
    )
    func treeReleasedByBuilder() {
        final class Box { var root: RootScope? }
        let box = Box()
        let session = ViewModel(initialState: Session(selection: nil))
        weak var weakRouter: Scope?
        do {
            let router = Scope()
            weakRouter = router
            router.hostChild(following: session.map(\.selection)) { [box] selection in
                if selection == "a" { box.root = nil }
                return selection.map { Leaving(item: $0) }
            }
            let root = RootScope()
            box.root = root
            root.host(router)
        }

        session.write { $0.selection = "a" }
        #expect(weakRouter == nil)
        session.write { $0.selection = "b" }
        #expect(session.subscriberCount == 0)
    }
}
