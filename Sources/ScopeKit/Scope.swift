/// A behavior that hosts other behaviors: an inner node of the tree.
///
/// Its children activate after it, in the order they were attached, and deactivate before it, in reverse
/// order. It holds them strongly; they never hold it. A subclass that needs a deinitializer writes
/// `isolated deinit`, as `Scope` itself does to let its children go on the main actor.
///
/// ```swift
/// let screen = Scope()
/// screen.host([header, list])
/// root.host(screen)  // screen, then header, then list activate
/// ```
@MainActor
open class Scope: Behavior {
    /// The behaviors this scope hosts, in attachment order.
    ///
    /// A new array at each read: attaching and detaching a child cost the same whatever the number of its
    /// siblings, because the scope keeps them in a list where each child knows its place.
    public var children: [Behavior] { childList.elements }

    @exclusivity(unchecked)
    var childList = ChildList()

    /// The values this scope provides to its subtree; nearer providers hide them.
    @exclusivity(unchecked)
    var provided = DependencyValues()

    /// The values this scope forces on its subtree, over every provider inside it.
    @exclusivity(unchecked)
    var overridden = DependencyValues()

    /// Creates a detached scope with no children.
    public override init() {
        super.init()
    }

    override init(state: ActivityState) {
        super.init(state: state)
    }

    isolated deinit {
        Lifecycle.orphan(children: &childList)
    }

    /// Attaches `behavior` to this scope; the same as `behavior.attach(to: self)`.
    ///
    /// - Parameter behavior: The behavior to host.
    public func host(_ behavior: Behavior) {
        behavior.attach(to: self)
    }

    /// Attaches `behavior` to this scope right before `sibling` among its children, or after them all when
    /// `sibling` is not one of them as the change runs. Nothing else differs from ``host(_:)``: the place decides
    /// only the order of the next activation.
    ///
    /// - Parameters:
    ///   - behavior: The behavior to host.
    ///   - sibling: The child to place it before.
    @usableFromInline
    package func host(_ behavior: Behavior, before sibling: Behavior?) {
        behavior.attach(to: self, before: sibling)
    }

    /// Whether `behavior` is a child of this scope right before `sibling`, as ``host(_:before:)`` places it when
    /// `sibling` is among the children as the change runs. A caller that relies on the place checks it after
    /// hosting: `sibling` may have left by hand, and a change requested inside a hook has not run yet.
    @usableFromInline
    package func holds(_ behavior: Behavior, rightBefore sibling: Behavior) -> Bool {
        behavior.host === self && childList.holds(behavior, rightBefore: sibling)
    }

    /// Attaches each of `behaviors` to this scope, in order.
    ///
    /// - Parameter behaviors: The behaviors to host.
    public func host(_ behaviors: [Behavior]) {
        for behavior in behaviors { host(behavior) }
    }

    /// Detaches `behavior` if this scope is its host; does nothing otherwise.
    ///
    /// Called from inside a lifecycle hook, the change runs once the current change completes, and whether this
    /// scope hosts `behavior` is decided then: `host(child)` followed by `evict(child)` leaves `child` out.
    ///
    /// - Parameter behavior: The behavior to let go.
    public func evict(_ behavior: Behavior) {
        Lifecycle.perform(.evict(behavior, from: self))
    }

    /// Reorders the children among `behaviors` to the order given, across the places they hold among this
    /// scope's children; every other child keeps its place, and no hook runs.
    ///
    /// Nothing activates or deactivates: the new order is the one that the next activation follows, and the
    /// next deactivation follows in reverse. Behaviors that this scope does not host are ignored. Called from
    /// inside a lifecycle hook, the change runs once the changes queued before it complete.
    ///
    /// - Parameter behaviors: Children of this scope, each once, in their new order.
    @usableFromInline
    package func arrange(_ behaviors: [Behavior]) {
        Lifecycle.perform(.arrange(behaviors, in: self))
    }

    /// Detaches each of `behaviors` whose host is this scope.
    ///
    /// - Parameter behaviors: The behaviors to let go.
    public func evict(_ behaviors: [Behavior]) {
        for behavior in behaviors { evict(behavior) }
    }
}

/// The top of a scope tree: always ``ActivityState/active``, never hosted.
///
/// Keep the root alive for as long as the tree should run; releasing it tears the tree down and cancels the
/// work of every active node.
///
/// ```swift
/// let root = RootScope()
/// root.host(AppScope())
/// ```
@MainActor
public final class RootScope: Scope {
    /// Creates an active root with no children.
    public override init() {
        super.init(state: .active)
    }
}

/// A behavior made from a closure, for work that needs no class of its own.
///
/// ```swift
/// root.host(AnonymousBehavior { cancellables in
///     Task { await sync() }.store(in: &cancellables)
/// })
/// ```
@MainActor
public final class AnonymousBehavior: Behavior {
    private let onActivate: (inout Set<AnyCancellable>) -> Void

    /// Creates a detached behavior that runs `onActivate` at each activation.
    ///
    /// - Parameter onActivate: Starts the work and stores what cancels it in the set it is given.
    public init(_ onActivate: @escaping (inout Set<AnyCancellable>) -> Void) {
        self.onActivate = onActivate
        super.init()
    }

    /// Runs the closure given at creation.
    ///
    /// - Parameter cancellables: Cancelled when this activation ends.
    public override func willActivate(cancellables: inout Set<AnyCancellable>) {
        onActivate(&cancellables)
    }
}
