public import ScopeKit
public import Sobreiro
public import SobreiroPrimitives

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

/// Keeps the children of a scope in line with a projected collection while the scope is active, one per
/// identity.
///
/// As `ChildRoute`, it holds its scope weakly and ends when a value finds the scope gone, and every show,
/// activation and deactivation starts a new generation: building a child and evicting one run user code, which
/// may deactivate the scope or show another collection, and a show that finds itself overtaken when that code
/// returns gives up. So that whatever overtook it finds the children as they are, `hosted` and `order` change
/// before each eviction and right after each hosting, never all at the end.
///
/// Inlinable, so that it is specialized for the app's element and identity types: unspecialized, each identity
/// it reads, hashes or compares is a call through a witness table, and a list of 1 000 rows paid over a thousand
/// instructions per row for each change.
@usableFromInline
@MainActor
final class ChildrenRoute<Element: Equatable & Sendable, ID: Hashable>: ActivationObserver {
    /// A child this route hosts, with the identity of its element.
    @usableFromInline
    struct Entry {
        @usableFromInline
        let id: ID
        @usableFromInline
        let child: Behavior

        @inlinable
        init(id: ID, child: Behavior) {
            self.id = id
            self.child = child
        }
    }

    // The route's fields skip Swift's dynamic exclusivity checks, as the tree's do: the main actor serialises
    // every access, and a show reads them once per element.

    @usableFromInline
    weak var scope: Scope?
    @usableFromInline
    let id: @MainActor (Element) -> ID
    @usableFromInline
    let child: @MainActor (Element) -> Behavior
    /// The children this route hosts, by identity.
    @usableFromInline
    @exclusivity(unchecked)
    var hosted: [ID: Behavior] = [:]
    /// The children of `hosted` in the order they hold in the scope; may name some that left during an overtaken
    /// show. Kept with the children, so that putting them in order looks none up.
    @usableFromInline
    @exclusivity(unchecked)
    var order: [Entry] = []
    /// Whether `order` may name children that left, after a show that was overtaken mid-way.
    @usableFromInline
    @exclusivity(unchecked)
    var orderIsStale = false
    @usableFromInline
    @exclusivity(unchecked)
    var subscription: StateSubscription?
    @usableFromInline
    @exclusivity(unchecked)
    var generation = 0
    /// Subscribes a route to its projection. Made in `init`, which runs specialized where the app creates the
    /// route, so that the delivery and `show` run specialized too: the route's own methods, reached through
    /// `ActivationObserver`, run unspecialized.
    @usableFromInline
    let connect: @MainActor (ChildrenRoute) -> StateSubscription

    @inlinable
    init(
        scope: Scope, projection: StateProjection<[Element]>, id: @escaping @MainActor (Element) -> ID,
        child: @escaping @MainActor (Element) -> Behavior
    ) {
        self.scope = scope
        self.id = id
        self.child = child
        connect = { route in
            let show: @MainActor (AnyObject, [Element]) -> Void = { route, elements in
                unsafeDowncast(route, to: ChildrenRoute.self).show(elements)
            }
            return MainActorStateHop.connect(route, render: show) { receive in
                projection.subscribe(route, key: SubscriptionKey(), receive: receive)
            }
        }
    }

    @inlinable
    func behaviorDidActivate() {
        generation &+= 1
        guard subscription == nil else { return }
        subscription = connect(self)
    }

    @inlinable
    func behaviorDidDeactivate() {
        generation &+= 1
        subscription?.cancel()
        subscription = nil
        // Cleared before the evictions, whose hooks may activate the scope again and host children of their own.
        let leaving = order
        let stillHosted = hosted
        hosted = [:]
        order = []
        orderIsStale = false
        for entry in leaving.reversed() where stillHosted[entry.id] === entry.child { scope?.evict(entry.child) }
    }

    @inlinable
    func show(_ elements: [Element]) {
        guard let scope else {
            // The scope is being deallocated: its children go with it, and no child is built for it any more.
            subscription?.cancel()
            subscription = nil
            return
        }
        generation &+= 1
        let current = generation
        let ids = identities(of: elements)
        if orderIsStale { pruneOrder() }
        // Only the middle between the longest common prefix and suffix can change: a push, a pop or one row
        // of a long list costs what that middle holds, apart from the comparisons and the children that move.
        let shorter = min(order.count, ids.count)
        var prefix = 0
        while prefix < shorter, order[prefix].id == ids[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix, order[order.count - 1 - suffix].id == ids[ids.count - 1 - suffix] {
            suffix += 1
        }
        let leavingRange = prefix..<(order.count - suffix)
        let comingRange = prefix..<(ids.count - suffix)
        // Which identities stay, and whether any is hosted outside the middle, which would make it a duplicate. A
        // short middle, as a push, a pop or one row replaced has, is searched in place rather than hashed.
        let staying = Staying(ids: ids[comingRange])
        var hostedComing = 0
        var hostedLeaving = 0
        for index in comingRange where hosted[ids[index]] != nil { hostedComing += 1 }
        for index in leavingRange where staying.contains(order[index].id) { hostedLeaving += 1 }
        if hostedComing != hostedLeaving { duplicateOutsideMiddle(ids[comingRange], leaving: leavingRange) }
        // 1. Evict the children whose element left, the last first.
        for index in leavingRange.reversed() where !staying.contains(order[index].id) {
            guard let leaving = hosted.removeValue(forKey: order[index].id) else { continue }
            orderIsStale = true
            scope.evict(leaving)
            guard generation == current else { return }
        }
        var suffixStart = order.count - suffix
        if orderIsStale {
            // Not overtaken: exactly the planned children left, all from the middle.
            var kept: [Entry] = []
            for index in leavingRange where staying.contains(order[index].id) { kept.append(order[index]) }
            order.replaceSubrange(leavingRange, with: kept)
            orderIsStale = false
            suffixStart = prefix + kept.count
        }
        // 2. Host a child for each new element, the first first, before the suffix: a push, a pop or a row
        //    replaced then needs no reordering. Whether each landed right before the suffix is checked: the
        //    first child of the suffix may have left by hand, which puts a new child last, and a change asked for
        //    inside a hook runs only later.
        let following = suffix > 0 ? order[suffixStart].child : nil
        var isPlaced = true
        for index in comingRange where hosted[ids[index]] == nil {
            let next = child(elements[index])
            guard generation == current else { return }
            next.routeKey = AnyHashable(ids[index])
            hosted[ids[index]] = next
            order.insert(Entry(id: ids[index], child: next), at: suffixStart)
            suffixStart += 1
            scope.host(next, before: following)
            guard generation == current else { return }
            if isPlaced, let following { isPlaced = scope.holds(next, rightBefore: following) }
        }
        // 3. Put the middle in the order of the elements, unless it is in order already: the prefix and the
        //    suffix are, and the children of the middle hold the places between them. A new child not known to
        //    sit before the suffix is arranged with it, as the change that hosts it may put it after.
        if isPlaced, middleIsInOrder(ids[comingRange], from: prefix) { return }
        let arranged = isPlaced ? comingRange : prefix..<ids.count
        var moving: [Behavior] = []
        moving.reserveCapacity(arranged.count)
        for index in arranged {
            guard let behavior = hosted[ids[index]] else { continue }
            order[index] = Entry(id: ids[index], child: behavior)
            moving.append(behavior)
        }
        scope.arrange(moving)
    }
}

/// The parts of a change that `ChildrenRoute.show(_:)` works out before it touches the scope: the identities of
/// the new elements, which of the middle stay, whether one repeats, and whether the middle is in order already.
extension ChildrenRoute {
    /// Whether the children of `order` from `start` on already follow `ids`.
    @inlinable
    func middleIsInOrder(_ ids: ArraySlice<ID>, from start: Int) -> Bool {
        var index = start
        for identity in ids {
            guard order[index].id == identity else { return false }
            index += 1
        }
        return true
    }

    /// Drops from `order` the children that left. A plain loop: a closure passed to the standard library here
    /// would be isolated to the main actor and check its executor once per child.
    @inlinable
    func pruneOrder() {
        var kept: [Entry] = []
        kept.reserveCapacity(order.count)
        for entry in order where hosted[entry.id] === entry.child { kept.append(entry) }
        if kept.count != order.count { order = kept }
        orderIsStale = false
    }

    /// Finds the element of the middle whose child sits in the prefix or the suffix, and traps naming it.
    @inlinable
    func duplicateOutsideMiddle(_ coming: ArraySlice<ID>, leaving: Range<Int>) -> Never {
        var replaced = Set<ID>()
        for index in leaving { replaced.insert(order[index].id) }
        for identity in coming where hosted[identity] != nil && !replaced.contains(identity) {
            Staying.duplicate(identity)
        }
        fatalError("hostChildren(following:): the route lost track of its children")
    }

    /// The identities of the middle of a new collection; traps if one repeats.
    @usableFromInline
    struct Staying {
        @usableFromInline
        let ids: ArraySlice<ID>
        /// Built only for a middle longer than a few elements.
        @usableFromInline
        let set: Set<ID>?

        @inlinable
        init(ids: ArraySlice<ID>) {
            self.ids = ids
            if ids.count > 8 {
                var set = Set<ID>(minimumCapacity: ids.count)
                for identity in ids where !set.insert(identity).inserted { Self.duplicate(identity) }
                self.set = set
            } else {
                set = nil
                for index in ids.indices where ids[ids.startIndex..<index].contains(ids[index]) {
                    Self.duplicate(ids[index])
                }
            }
        }

        @inlinable
        func contains(_ identity: ID) -> Bool {
            if let set { return set.contains(identity) }
            return ids.contains(identity)
        }

        @inlinable
        static func duplicate(_ identity: ID) -> Never {
            fatalError(
                "hostChildren(following:): two elements have the id \(identity); give each element a distinct id")
        }
    }

    @inlinable
    func identities(of elements: [Element]) -> [ID] {
        var result: [ID] = []
        result.reserveCapacity(elements.count)
        for element in elements { result.append(id(element)) }
        return result
    }
}
