import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import TestSupport
import Testing

private struct Route: ViewState {
    var selection: String?
}

// The route follows its projection through the main-actor hop that views and event channels use. The write happens
// on another thread while the main queue is held, so the hand-over is queued behind the test's own job.
@Suite("Main-actor hop of a route")
@MainActor
struct MainActorHopRoutingTests {
    @Test("R5: a route whose scope deactivated while a value waited for the main actor builds and hosts nothing")
    func deactivatedRouteHostsNothing() async {
        let route = ViewModel(initialState: Route())
        let router = Scope()
        var built: [String?] = []
        router.hostChild(following: route.map(\.selection)) { selection in
            built.append(selection)
            return selection.map { _ in Scope() }
        }
        let root = RootScope()
        root.host(router)

        #expect(runElsewhereHoldingMainQueue { route.write { $0.selection = "cork" } })
        router.detach()
        await drainMainQueue()

        #expect(built == [nil])
        #expect(router.children.isEmpty)
    }
}
