public import ScopeKit
public import Sobreiro
import SobreiroPrimitives

extension Scope {
    /// Hosts, while this scope is active, the child that `child` builds from a part of a model's state, and
    /// replaces it whenever that part changes.
    ///
    /// Call it once, when you set the scope up. Each time the scope activates, it follows `projection` on the
    /// main actor: the current value at once, then each value that differs from the previous one. For each
    /// value, `child` returns the behavior to host, or `nil` for none. A behavior other than the one hosted
    /// before replaces it: the previous one is evicted, the new one hosted. When the scope deactivates, it stops
    /// following and evicts the child, so a feature exists exactly while the state asks for it.
    ///
    /// ```swift
    /// let router = Scope()
    /// router.hostChild(following: session.map(\.isSignedIn)) { isSignedIn in
    ///     isSignedIn ? SignedInScope(session: session) : SignInScope(session: session)
    /// }
    /// router.hostChild(following: list.map(\.selection)) { selection in
    ///     selection.map { DetailScope(item: $0) }
    /// }
    /// ```
    ///
    /// Returning the behavior that is hosted already keeps it; returning a new instance each time rebuilds the
    /// feature on every change of the value.
    ///
    /// A scope may have several routes: call this, or ``hostChildren(following:_:)`` for a collection, once per
    /// part of the state that decides a child. Each route hosts and evicts only its own children, beside any
    /// the scope hosts itself.
    ///
    /// - Parameters:
    ///   - projection: The part of a model's state that decides the child, from `ViewModel.map(_:)`.
    ///   - child: Builds the behavior for a value, or returns `nil` to host none. Runs on the main actor.
    public func hostChild<Value>(
        following projection: StateProjection<Value>,
        _ child: @escaping @MainActor (Value) -> Behavior?
    ) {
        addActivationObserver(ChildRoute(scope: self, projection: projection, child: child))
    }
}

/// Keeps one child of a scope in line with a projected value while the scope is active.
///
/// The scope owns the route, so the route holds it weakly. A tree released while active deallocates the scope
/// without deactivating it, and the children it lets go may still write the routed model from their hooks: a
/// value that reaches the route then finds no scope, and ends the route instead of changing a tree that is going.
///
/// Showing a value runs user code before the new child is hosted: the builder, and the old child's hooks as it is
/// evicted. That code may deactivate the scope, activate it again, or show another value from a new activation's
/// subscription. Every show, activation and deactivation therefore starts a new generation, and a show that finds
/// its generation overtaken when that code returns gives up: what overtook it has decided the child already.
@MainActor
final class ChildRoute<Value: Equatable & Sendable>: ActivationObserver {
    private weak var scope: Scope?
    private let projection: StateProjection<Value>
    private let child: @MainActor (Value) -> Behavior?
    private var hosted: Behavior?
    private var subscription: StateSubscription?
    /// Bumped by every show, activation and deactivation, so that a show can tell whether it was overtaken.
    private var generation = 0

    init(scope: Scope, projection: StateProjection<Value>, child: @escaping @MainActor (Value) -> Behavior?) {
        self.scope = scope
        self.projection = projection
        self.child = child
    }

    func behaviorDidActivate() {
        generation &+= 1
        guard subscription == nil else { return }
        let show: @MainActor (AnyObject, Value) -> Void = { route, value in
            unsafeDowncast(route, to: ChildRoute.self).show(value)
        }
        subscription = MainActorStateHop.connect(self, render: show) { receive in
            projection.subscribe(self, key: SubscriptionKey(), receive: receive)
        }
    }

    func behaviorDidDeactivate() {
        generation &+= 1
        subscription?.cancel()
        subscription = nil
        // Cleared before the evict, whose hooks may activate the scope again and host a child of their own.
        if let hosted {
            self.hosted = nil
            scope?.evict(hosted)
        }
    }

    private func show(_ value: Value) {
        guard let scope else {
            // The scope is being deallocated: its children go with it, and no child is built for it any more.
            subscription?.cancel()
            subscription = nil
            return
        }
        generation &+= 1
        let current = generation
        let next = child(value)
        guard generation == current, next !== hosted else { return }
        if let previous = hosted {
            // Cleared first: the evict runs the previous child's hooks, and the route must not evict it twice.
            hosted = nil
            scope.evict(previous)
            guard generation == current else { return }
        }
        hosted = next
        if let next { scope.host(next) }
    }
}
