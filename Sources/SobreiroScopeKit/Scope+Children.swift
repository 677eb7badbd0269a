public import ScopeKit
public import Sobreiro

extension Scope {
    /// Hosts, while this scope is active, one child per element of a collection in a model's state, keyed by
    /// each element's `id`: a navigation stack, or a list of cells with their own models.
    ///
    /// Call it once, when you set the scope up. Each time the scope activates, it follows `projection` on the
    /// main actor, and for each collection it receives it makes the children match the elements:
    ///
    /// 1. The children whose element left are evicted, the last first, as a stack pops from the top.
    /// 2. A child is built and hosted for each new element, the first first, so a deep link that pushes
    ///    several screens at once hosts them from the bottom up. Each activates as it is hosted.
    /// 3. The children are put in the order of the elements. A child whose element stays keeps its instance
    ///    and stays active: moving it runs no hook. The new order is the one that the next activation of the
    ///    scope follows, and its next deactivation follows in reverse.
    ///
    /// `child` runs once per identity: a change to an element whose `id` stays rebuilds nothing, so a child
    /// reads the element's other fields from the model, not from the value it was built with. When the scope
    /// deactivates, its children deactivate with it, the last first, as every child does; then it stops
    /// following and evicts them, the last first.
    ///
    /// ```swift
    /// struct Screen: Identifiable, Equatable, Sendable { let id: Int; let player: Player.ID }
    ///
    /// let stack = Scope()
    /// stack.hostChildren(following: navigation.map(\.path)) { screen in
    ///     PlayerDetailScope(player: screen.player, league: league)
    /// }
    /// navigation.write { $0.path.append(Screen(id: 7, player: 42)) }  // push
    /// navigation.write { $0.path.removeLast() }                      // pop
    /// navigation.write { $0.path = [] }                              // pop to root
    /// ```
    ///
    /// A scope may follow several routes, each with ``hostChild(following:_:)`` or this method, and host
    /// children of its own beside them: each route hosts and evicts only the children it built, and reordering
    /// moves them only among the places they hold.
    ///
    /// Two elements with the same `id` are a programmer error, which traps.
    ///
    /// - Parameters:
    ///   - projection: The collection that decides the children, from `ViewModel.map(_:)`.
    ///   - child: Builds the behavior for a new element. Runs on the main actor.
    @inlinable
    public func hostChildren<Element: Identifiable & Equatable & Sendable>(
        following projection: StateProjection<[Element]>,
        _ child: @escaping @MainActor (Element) -> Behavior
    ) {
        addActivationObserver(ChildrenRoute(scope: self, projection: projection, id: { $0.id }, child: child))
    }

    /// Hosts, while this scope is active, one child per element of a collection in a model's state, keyed by
    /// the value at `id`; the same as ``hostChildren(following:_:)``, for elements that are not `Identifiable`.
    ///
    /// ```swift
    /// list.hostChildren(following: feed.map(\.posts), id: \.url) { post in
    ///     PostCellScope(url: post.url, feed: feed)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - projection: The collection that decides the children, from `ViewModel.map(_:)`.
    ///   - id: The path to each element's identity, distinct across the collection.
    ///   - child: Builds the behavior for a new element. Runs on the main actor.
    @inlinable
    public func hostChildren<Element: Equatable & Sendable, ID: Hashable>(
        following projection: StateProjection<[Element]>,
        id: KeyPath<Element, ID>,
        _ child: @escaping @MainActor (Element) -> Behavior
    ) {
        addActivationObserver(ChildrenRoute(scope: self, projection: projection, id: { $0[keyPath: id] }, child: child))
    }
}
