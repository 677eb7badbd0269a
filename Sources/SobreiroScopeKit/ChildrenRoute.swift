public import ScopeKit
public import Sobreiro
public import SobreiroPrimitives

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
