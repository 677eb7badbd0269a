import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Testing

@Suite("Lists from state, with a child that left by hand")
@MainActor
struct RouteLeftChildTests {
    let journal = Journal()
    let root = RootScope()

    @Test("a row inserted before a child that left by hand still goes before the rows after it")
    func insertBeforeChildThatLeft() {
        let (model, list) = hostedList()
        list.children[1].detach()
        #expect(screens(of: list) == [1, 3])

        model.write { $0.rows.insert(Row(key: "x"), at: 1) }
        #expect(screens(of: list) == [1, 4, 3])
    }

    @Test("from a hook, a row inserted before a child evicted by hand in the same hook goes before the rows after it")
    func insertFromHookBeforeChildEvictedThere() {
        let (model, list) = hostedList()
        let hook = HookAction()
        hook.onActivate = {
            // Both changes wait for the hook to return: the eviction runs first, then the hosting of the new row.
            list.evict(list.children[1])
            model.write { $0.rows.insert(Row(key: "x"), at: 1) }
        }
        root.host(hook)
        #expect(screens(of: list) == [1, 4, 3])
    }

    /// A list of screens 1, 2 and 3 following rows a, b and c (a row x shows screen 4), hosted under the active root.
    private func hostedList() -> (ViewModel<Rows>, Scope) {
        let model = ViewModel(initialState: Rows(rows: [Row(key: "a"), Row(key: "b"), Row(key: "c")]))
        let list = Scope()
        list.hostChildren(following: model.map(\.rows), id: \.key) { [journal] row in
            ScreenScope(screen: ["a": 1, "b": 2, "c": 3, "x": 4][row.key] ?? -1, journal: journal)
        }
        root.host(list)
        #expect(screens(of: list) == [1, 2, 3])
        return (model, list)
    }
}
