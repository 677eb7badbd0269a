import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Testing

private struct Session: ViewState {
    var isSignedIn = false
    var selection: String?
}

/// A feature for one selected item.
private final class DetailScope: Scope {
    let item: String

    init(item: String) {
        self.item = item
    }
}

@Suite("Navigation from state")
@MainActor
struct RoutingTests {
    @Test("a scope hosts the child its model's state asks for, replaces it on change, and evicts it on nil")
    func hostsFromState() async {
        let session = ViewModel(initialState: Session())
        let router = Scope()
        router.hostChild(following: session.map(\.selection)) { selection in
            selection.map { DetailScope(item: $0) }
        }
        let root = RootScope()
        root.host(router)
        #expect(router.children.isEmpty)

        session.write { $0.selection = "cork" }
        let first = router.children.first as? DetailScope
        #expect(first?.item == "cork")
        #expect(first?.state == .active)

        session.write { $0.selection = "oak" }
        #expect(router.children.count == 1)
        #expect((router.children.first as? DetailScope)?.item == "oak")
        #expect(first?.state == .detached, "the previous feature left the tree")

        session.write { $0.selection = nil }
        #expect(router.children.isEmpty)
    }

    @Test("signing out replaces the signed-in features, and the replaced ones are released")
    func signingOutRemovesFeatures() {
        let session = ViewModel(initialState: Session(isSignedIn: true))
        let signedIn = Scope()
        let signIn = Scope()
        let router = Scope()
        router.hostChild(following: session.map(\.isSignedIn)) { isSignedIn in
            isSignedIn ? signedIn : signIn
        }
        let root = RootScope()
        root.host(router)
        #expect(router.children.map(ObjectIdentifier.init) == [ObjectIdentifier(signedIn)])

        session.write { $0.isSignedIn = false }

        #expect(router.children.map(ObjectIdentifier.init) == [ObjectIdentifier(signIn)])
        #expect(signedIn.state == .detached)
    }

    @Test("the child exists only while the router is active, and comes back, rebuilt, on reactivation")
    func childFollowsTheRoutersActivation() {
        let session = ViewModel(initialState: Session(selection: "cork"))
        let router = Scope()
        var built = 0
        router.hostChild(following: session.map(\.selection)) { selection in
            built += 1
            return selection.map { DetailScope(item: $0) }
        }
        let root = RootScope()
        root.host(router)
        weak let firstChild = router.children.first

        router.detach()
        #expect(router.children.isEmpty)
        #expect(firstChild == nil, "the evicted child was released")
        session.write { $0.selection = "oak" }
        #expect(built == 1, "an inactive router does not follow the state")

        root.host(router)
        #expect((router.children.first as? DetailScope)?.item == "oak")
        #expect(built == 2)
    }

    @Test("a write from another thread reaches the router on the main actor")
    func writesFromAnotherThread() async {
        let session = ViewModel(initialState: Session())
        let router = Scope()
        let hosted = Gate<String>()
        router.hostChild(following: session.map(\.selection)) { selection in
            guard let selection else { return nil }
            MainActor.preconditionIsolated()
            hosted.open(selection)
            return DetailScope(item: selection)
        }
        let root = RootScope()
        root.host(router)

        await Task.detached { session.write { $0.selection = "cork" } }.value

        #expect(await withDeadline { await hosted.wait() } == "cork")
        #expect((router.children.first as? DetailScope)?.item == "cork")
    }
}
