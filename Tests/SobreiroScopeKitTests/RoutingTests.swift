import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Synchronization
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

/// A routed feature that, as it deactivates, clears the selection that routed to it.
private final class ClosingDetail: Behavior {
    let session: ViewModel<Session>
    let cancelled: @Sendable () -> Void

    init(session: ViewModel<Session>, cancelled: @escaping @Sendable () -> Void) {
        self.session = session
        self.cancelled = cancelled
    }

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        AnyCancellable(cancelled).store(in: &cancellables)
    }

    override func willDeactivate() {
        session.write { $0.selection = nil }
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

    @Test("S7: releasing an active tree whose routed child writes the routed model as it goes tears down cleanly")
    func releasingARoutedTreeWhileActive() async {
        // In a process of its own: the route once read its scope while the scope was being destroyed, and crashed.
        await #expect(processExitsWith: .success) {
            await MainActor.run { releaseActiveRoutedTree() }
        }
    }
}

/// Releases an active tree whose routed child clears the routed selection from `willDeactivate`, and stops the
/// process if the teardown is not clean: the child's work must be cancelled, the route must not build another
/// child for a scope that is going, and every node must be freed.
@MainActor
private func releaseActiveRoutedTree() {
    let session = ViewModel(initialState: Session(selection: "cork"))
    let cancellations = Counter()
    var built = 0
    weak var weakRouter: Scope?
    weak var weakChild: Behavior?
    do {
        let root = RootScope()
        let router = Scope()
        router.hostChild(following: session.map(\.selection)) { selection in
            built += 1
            return selection.map { _ in ClosingDetail(session: session) { cancellations.increment() } }
        }
        root.host(router)
        // Optimized code may release `root` after its last use: the tree must stand until the block ends.
        withExtendedLifetime(root) {
            check(router.children.count == 1 && built == 1, "the route should host the detail")
            (weakRouter, weakChild) = (router, router.children.first)
        }
    }
    check(session.state.selection == nil, "the detail's willDeactivate should have run")
    check(cancellations.value == 1, "the detail's work should be cancelled once, not \(cancellations.value)")
    check(built == 1, "a route whose scope is going should build nothing, but built \(built) children")
    check(weakRouter == nil && weakChild == nil, "the router and its child should be freed")
}

/// Stops the process with `message` unless `condition` holds; unlike `precondition`, its message survives `-O`.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

/// Counts from any thread.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
