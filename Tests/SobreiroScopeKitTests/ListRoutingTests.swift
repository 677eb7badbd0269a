import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Testing

struct Row: Equatable, Sendable {
    var key: String
    var text = ""
}

struct Rows: ViewState {
    var rows: [Row] = []
    var selection: Int?
}

/// A behavior that runs `action` as it activates or deactivates, to change the state from inside a hook.
final class HookAction: Behavior {
    var onActivate: (@MainActor () -> Void)?
    var onDeactivate: (@MainActor () -> Void)?

    override func willActivate(cancellables: inout Set<AnyCancellable>) { onActivate?() }
    override func willDeactivate() { onDeactivate?() }
}

@Suite("Lists from state")
@MainActor
struct ListRoutingTests {
    let journal = Journal()

    @Test("in a list of 1 000, changing one element's identity hosts and evicts that one only")
    func oneOfAThousand() {
        let model = ViewModel(initialState: Rows(rows: (0..<1_000).map { Row(key: "row \($0)") }))
        var built: [String] = []
        let list = Scope()
        list.hostChildren(following: model.map(\.rows), id: \.key) { [journal] row in
            built.append(row.key)
            return ScreenScope(screen: Int(row.key.dropFirst(4)) ?? -1, journal: journal)
        }
        let root = RootScope()
        root.host(list)
        #expect(built.count == 1_000)
        #expect(screens(of: list) == Array(0..<1_000))
        let kept = list.children
        built = []
        journal.clear()

        model.write { $0.rows[500] = Row(key: "row 5000") }
        #expect(built == ["row 5000"])
        #expect(journal.entries == ["500.deactivate", "500.detach", "5000.attach", "5000.activate"])
        var expected = Array(0..<1_000)
        expected[500] = 5_000
        #expect(screens(of: list) == expected)
        for index in kept.indices where index != 500 { #expect(list.children[index] === kept[index]) }

        journal.clear()
        model.write { $0.rows[10].text = "edited" }
        #expect(journal.entries.isEmpty, "an element whose key stays keeps its child")
    }

    @Test("several routes and plain children share a scope: each route moves its children among their places")
    func severalRoutes() {
        let model = ViewModel(initialState: Rows(rows: [Row(key: "a"), Row(key: "b")], selection: 9))
        let scope = Scope()
        let header = ScreenScope(screen: 100, journal: journal)
        scope.host(header)
        scope.hostChildren(following: model.map(\.rows), id: \.key) { [journal] row in
            ScreenScope(screen: ["a": 1, "b": 2, "c": 3][row.key] ?? -1, journal: journal)
        }
        scope.hostChild(following: model.map(\.selection)) { [journal] selection in
            selection.map { ScreenScope(screen: $0, journal: journal) }
        }
        let root = RootScope()
        root.host(scope)
        #expect(screens(of: scope) == [100, 1, 2, 9])

        model.write { $0.rows.reverse() }
        #expect(screens(of: scope) == [100, 2, 1, 9], "the header and the other route's child keep their places")
        // A new child is hosted last, after the other route's; reordering then uses the places it holds.
        model.write { $0.rows.append(Row(key: "c")) }
        #expect(screens(of: scope) == [100, 2, 1, 9, 3])
        model.write { $0.rows = [Row(key: "c"), Row(key: "b"), Row(key: "a")] }
        #expect(screens(of: scope) == [100, 3, 2, 9, 1])
        #expect(scope.children.first === header)
    }

    @Test("a reorder written from inside a hook applies after the change running, without a hook of its own")
    func reorderFromHook() {
        let navigation = ViewModel(initialState: Navigation(path: [Screen(id: 1), Screen(id: 2), Screen(id: 3)]))
        let stack = Scope()
        stack.hostChildren(following: navigation.map(\.path)) { [journal] screen in
            ScreenScope(screen: screen.id, journal: journal)
        }
        let root = RootScope()
        root.host(stack)
        journal.clear()
        let trigger = HookAction()
        trigger.onActivate = { navigation.write { $0.path.reverse() } }
        root.host(trigger)
        #expect(screens(of: stack) == [3, 2, 1])
        #expect(journal.entries.isEmpty)
    }

    @Test("a screen that pops another as it leaves: the children end as the last state asks")
    func popFromHook() {
        let navigation = ViewModel(initialState: Navigation(path: [Screen(id: 1), Screen(id: 2), Screen(id: 3)]))
        let stack = Scope()
        stack.hostChildren(following: navigation.map(\.path)) { screen in
            let action = HookAction()
            if screen.id == 3 { action.onDeactivate = { navigation.write { $0.path = [Screen(id: 1)] } } }
            return action
        }
        let root = RootScope()
        root.host(stack)
        #expect(stack.children.count == 3)
        navigation.write { _ = $0.path.removeLast() }
        #expect(navigation.state.path == [Screen(id: 1)])
        #expect(stack.children.count == 1)
        #expect(stack.children.allSatisfy { $0.state == .active })
    }

    @Test("two elements with the same id trap, naming the fix")
    func duplicateIdentity() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let navigation = ViewModel(initialState: Navigation(path: [Screen(id: 1), Screen(id: 1)]))
                let stack = Scope()
                stack.hostChildren(following: navigation.map(\.path)) { _ in HookAction() }
                RootScope().host(stack)
            }
        }
        // The message survives optimized builds too: the suite runs in release as well.
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("two elements have the id"))
        #expect(message.contains("give each element a distinct id"))
    }
}
