import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Testing

struct Screen: Identifiable, Equatable, Sendable {
    let id: Int
    var title = ""
}

struct Navigation: ViewState {
    var path: [Screen] = []
}

/// A screen of a stack that records its hooks under its id.
final class ScreenScope: Scope {
    let screen: Int
    let journal: Journal

    init(screen: Int, journal: Journal) {
        self.screen = screen
        self.journal = journal
    }

    override func willAttach() { journal.record("\(screen).attach") }
    override func willActivate(cancellables: inout Set<AnyCancellable>) { journal.record("\(screen).activate") }
    override func willDeactivate() { journal.record("\(screen).deactivate") }
    override func didDetach() { journal.record("\(screen).detach") }
}

/// The screens a scope hosts, by id, in order.
@MainActor
func screens(of scope: Scope) -> [Int] {
    scope.children.compactMap { ($0 as? ScreenScope)?.screen }
}

@Suite("Stacks from state")
@MainActor
struct StackRoutingTests {
    let journal = Journal()
    let navigation = ViewModel(initialState: Navigation())
    let stack = Scope()
    let root = RootScope()

    init() {
        stack.hostChildren(following: navigation.map(\.path)) { [journal] screen in
            ScreenScope(screen: screen.id, journal: journal)
        }
        root.host(stack)
    }

    func path(_ ids: [Int]) -> [Screen] { ids.map { Screen(id: $0) } }

    @Test("push hosts and activates one screen; pop evicts the top; pop to root evicts the rest, top first")
    func pushAndPop() {
        navigation.write { $0.path = path([1]) }
        navigation.write { $0.path.append(Screen(id: 2)) }
        #expect(screens(of: stack) == [1, 2])
        #expect(journal.entries == ["1.attach", "1.activate", "2.attach", "2.activate"])
        let bottom = stack.children.first
        journal.clear()

        navigation.write { $0.path.append(Screen(id: 3)) }
        navigation.write { _ = $0.path.removeLast() }
        #expect(screens(of: stack) == [1, 2])
        #expect(journal.entries == ["3.attach", "3.activate", "3.deactivate", "3.detach"])
        #expect(stack.children.first === bottom, "the screens below stay the same instances")
        journal.clear()

        navigation.write { $0.path = [] }
        #expect(stack.children.isEmpty)
        #expect(journal.entries == ["2.deactivate", "2.detach", "1.deactivate", "1.detach"])
    }

    @Test("a deep link hosts several screens at once, from the bottom up, each active")
    func deepLink() {
        navigation.write { $0.path = path([1]) }
        journal.clear()
        navigation.write { $0.path = path([1, 4, 5, 6]) }
        #expect(screens(of: stack) == [1, 4, 5, 6])
        #expect(
            journal.entries == [
                "4.attach", "4.activate", "5.attach", "5.activate", "6.attach", "6.activate",
            ])
        #expect(stack.children.allSatisfy { $0.state == .active })
    }

    @Test("reordering moves the screens without a hook, and the next deactivation follows the new order")
    func reorder() {
        navigation.write { $0.path = path([1, 2, 3]) }
        let before = stack.children
        journal.clear()
        navigation.write { $0.path = path([3, 1, 2]) }
        #expect(screens(of: stack) == [3, 1, 2])
        #expect(journal.entries.isEmpty, "no screen was re-activated")
        #expect(Set(stack.children.map(ObjectIdentifier.init)) == Set(before.map(ObjectIdentifier.init)))

        stack.detach()
        #expect(
            journal.entries.filter { $0.hasSuffix("deactivate") } == ["2.deactivate", "1.deactivate", "3.deactivate"])
        #expect(stack.children.isEmpty, "an inactive scope hosts no routed child")
    }

    @Test("removing one, adding one and moving the rest in one change: evict, then host, then order")
    func mixedChange() {
        navigation.write { $0.path = path([1, 2, 3, 4]) }
        journal.clear()
        navigation.write { $0.path = path([4, 7, 2, 8]) }
        #expect(screens(of: stack) == [4, 7, 2, 8])
        #expect(
            journal.entries == [
                "3.deactivate", "3.detach", "1.deactivate", "1.detach",
                "7.attach", "7.activate", "8.attach", "8.activate",
            ])
    }

    @Test("a change to an element whose id stays rebuilds nothing")
    func sameIdentity() {
        var built = 0
        let list = Scope()
        // The closure names `journal` in its capture list: reading it through `self` would capture this suite,
        // whose root hosts the list, and keep the tree alive for good.
        list.hostChildren(following: navigation.map(\.path)) { [journal] screen in
            built += 1
            return ScreenScope(screen: screen.id, journal: journal)
        }
        root.host(list)
        navigation.write { $0.path = path([1, 2]) }
        navigation.write { $0.path[1].title = "renamed" }
        #expect(built == 2)
        #expect(screens(of: list) == [1, 2])
    }

    @Test("deactivating the scope evicts its screens, top first; activating it again builds them again")
    func deactivateAndReactivate() {
        navigation.write { $0.path = path([1, 2]) }
        let first = stack.children
        journal.clear()
        stack.detach()
        // The tree deactivates the children with their scope, top first; the route then evicts them, top first.
        #expect(journal.entries == ["2.deactivate", "1.deactivate", "2.detach", "1.detach"])
        root.host(stack)
        #expect(screens(of: stack) == [1, 2])
        #expect(stack.children.first !== first.first)
    }
}
