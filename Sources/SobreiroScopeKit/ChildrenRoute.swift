import ScopeKit
import Sobreiro
import SobreiroPrimitives

/// Keeps the children of a scope in line with a projected collection while the scope is active, one per
/// identity.
///
/// As `ChildRoute`, it holds its scope weakly and ends when a value finds the scope gone, and every show,
/// activation and deactivation starts a new generation: building a child and evicting one run user code, which
/// may deactivate the scope or show another collection, and a show that finds itself overtaken when that code
/// returns gives up. So that whatever overtook it finds the children as they are, `hosted` and `order` change
/// before each eviction and right after each hosting, never all at the end.
@MainActor
final class ChildrenRoute<Element: Equatable & Sendable, ID: Hashable>: ActivationObserver {
    private weak var scope: Scope?
    private let projection: StateProjection<[Element]>
    private let id: @MainActor (Element) -> ID
    private let child: @MainActor (Element) -> Behavior
    /// The children this route hosts, by identity.
    private var hosted: [ID: Behavior] = [:]
    /// The identities of `hosted`, in the order of the children; may name some that left during an overtaken show.
    private var order: [ID] = []
    /// Whether `order` may name children that left, after a show that was overtaken mid-way.
    private var orderIsStale = false
    private var subscription: StateSubscription?
    private var generation = 0

    init(
        scope: Scope, projection: StateProjection<[Element]>, id: @escaping @MainActor (Element) -> ID,
        child: @escaping @MainActor (Element) -> Behavior
    ) {
        self.scope = scope
        self.projection = projection
        self.id = id
        self.child = child
    }

    func behaviorDidActivate() {
        generation &+= 1
        guard subscription == nil else { return }
        let show: @MainActor (AnyObject, [Element]) -> Void = { route, elements in
            unsafeDowncast(route, to: ChildrenRoute.self).show(elements)
        }
        subscription = MainActorStateHop.connect(self, render: show) { receive in
            projection.subscribe(self, distinct: true, receive: receive)
        }
    }

    func behaviorDidDeactivate() {
        generation &+= 1
        subscription?.cancel()
        subscription = nil
        // Cleared before the evictions, whose hooks may activate the scope again and host children of their own.
        var leaving: [Behavior] = []
        leaving.reserveCapacity(order.count)
        for identity in order { if let behavior = hosted[identity] { leaving.append(behavior) } }
        hosted = [:]
        order = []
        orderIsStale = false
        for behavior in leaving.reversed() { scope?.evict(behavior) }
    }

    private func show(_ elements: [Element]) {
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
        // of a long list costs what that middle holds, apart from the comparisons.
        let shorter = min(order.count, ids.count)
        var prefix = 0
        while prefix < shorter, order[prefix] == ids[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix, order[order.count - 1 - suffix] == ids[ids.count - 1 - suffix] { suffix += 1 }
        let leavingRange = prefix..<(order.count - suffix)
        let comingRange = prefix..<(ids.count - suffix)
        var staying = Set<ID>(minimumCapacity: comingRange.count)
        for index in comingRange where !staying.insert(ids[index]).inserted { duplicate(ids[index]) }
        var replaced = Set<ID>(minimumCapacity: leavingRange.count)
        for index in leavingRange { replaced.insert(order[index]) }
        for identity in staying where hosted[identity] != nil && !replaced.contains(identity) { duplicate(identity) }
        // 1. Evict the children whose element left, the last first.
        for index in leavingRange.reversed() where !staying.contains(order[index]) {
            guard let leaving = hosted.removeValue(forKey: order[index]) else { continue }
            orderIsStale = true
            scope.evict(leaving)
            guard generation == current else { return }
        }
        if orderIsStale {
            // Not overtaken: exactly the planned children left, all from the middle.
            var kept: [ID] = []
            for index in leavingRange where staying.contains(order[index]) { kept.append(order[index]) }
            order.replaceSubrange(leavingRange, with: kept)
            orderIsStale = false
        }
        // 2. Host a child for each new element, the first first.
        for index in comingRange where hosted[ids[index]] == nil {
            let next = child(elements[index])
            guard generation == current else { return }
            hosted[ids[index]] = next
            order.append(ids[index])
            scope.host(next)
            guard generation == current else { return }
        }
        // 3. Put them in the order of the elements, unless nothing moved. The prefix holds the lowest places
        //    already, so only the rest is arranged.
        guard order != ids else { return }
        order = ids
        var moving: [Behavior] = []
        moving.reserveCapacity(ids.count - prefix)
        for index in prefix..<ids.count {
            if let behavior = hosted[ids[index]] { moving.append(behavior) }
        }
        scope.arrange(moving)
    }

    /// Drops from `order` the identities of children that left. A plain loop: a closure passed to the standard
    /// library here would be isolated to the main actor and check its executor once per child.
    private func pruneOrder() {
        var kept: [ID] = []
        kept.reserveCapacity(order.count)
        for identity in order where hosted[identity] != nil { kept.append(identity) }
        if kept.count != order.count { order = kept }
        orderIsStale = false
    }

    private func duplicate(_ identity: ID) -> Never {
        preconditionFailure(
            "hostChildren(following:): two elements have the id \(identity); give each element a distinct id")
    }

    private func identities(of elements: [Element]) -> [ID] {
        var result: [ID] = []
        result.reserveCapacity(elements.count)
        for element in elements { result.append(id(element)) }
        return result
    }
}
