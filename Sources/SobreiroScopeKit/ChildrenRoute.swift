import ScopeKit
import Sobreiro

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
        let leaving = order.compactMap { hosted[$0] }
        hosted = [:]
        order = []
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
        var wanted = Set<ID>(minimumCapacity: ids.count)
        for identity in ids where !wanted.insert(identity).inserted {
            preconditionFailure(
                "hostChildren(following:): two elements have the id \(identity); give each element a distinct id")
        }
        // 1. Evict the children whose element left, the last first.
        order.removeAll { hosted[$0] == nil }
        for identity in order.reversed() where !wanted.contains(identity) {
            guard let leaving = hosted.removeValue(forKey: identity) else { continue }
            scope.evict(leaving)
            guard generation == current else { return }
        }
        order.removeAll { hosted[$0] == nil }
        // 2. Host a child for each new element, the first first.
        for (identity, element) in zip(ids, elements) where hosted[identity] == nil {
            let next = child(element)
            guard generation == current else { return }
            hosted[identity] = next
            order.append(identity)
            scope.host(next)
            guard generation == current else { return }
        }
        // 3. Put them in the order of the elements, unless nothing moved.
        guard order != ids else { return }
        order = ids
        scope.arrange(ids.compactMap { hosted[$0] })
    }

    private func identities(of elements: [Element]) -> [ID] {
        var result: [ID] = []
        result.reserveCapacity(elements.count)
        for element in elements { result.append(id(element)) }
        return result
    }
}
