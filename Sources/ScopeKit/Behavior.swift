import SobreiroPrimitives

/// A node of a scope tree: work that runs exactly while the node is active.
///
/// Subclass it and override the lifecycle hooks, or use ``AnonymousBehavior`` for one-off work. A behavior is
/// ``ActivityState/detached`` until it is attached to a ``Scope``; it is ``ActivityState/active`` while that
/// scope is active, and ``ActivityState/attached`` otherwise. Whatever it stores into the `cancellables` of
/// ``willActivate(cancellables:)`` is cancelled when it deactivates, so closures there may capture `self`
/// strongly: the cycle ends with the activation.
///
/// ```swift
/// final class Clock: Behavior {
///     override func willActivate(cancellables: inout Set<AnyCancellable>) {
///         Task { [self] in
///             while !Task.isCancelled { tick(); try? await Task.sleep(for: .seconds(1)) }
///         }.store(in: &cancellables)
///     }
/// }
/// root.host(Clock())
/// ```
///
/// Hosts hold their children strongly; a behavior never keeps its host alive. Changes made from inside a
/// hook (`attach`, `detach`, `host`, `evict`) run after the current change of the tree completes.
/// See <doc:TheLifecycle> for the exact order of the hooks.
@MainActor
open class Behavior {
    // The tree's fields skip Swift's dynamic exclusivity checks, which otherwise dominate the cost of a change:
    // the main actor already serialises every access, and no access to them overlaps a callback.

    /// The scope hosting this behavior, if any.
    @exclusivity(unchecked)
    public internal(set) weak var host: Scope?

    /// The model bound to this behavior, if any, by which paths in messages name it and tests find it. Weak: the
    /// binding keeps it.
    package weak var boundModel: AnyObject?

    /// The identity of the element of state that a route hosts this behavior for, if one does: tests find a
    /// child by it.
    @usableFromInline package var routeKey: AnyHashable?

    /// The lifecycle state of this behavior.
    @exclusivity(unchecked)
    public internal(set) var state: ActivityState

    /// The cancellables of the current activation; empty when not active.
    @exclusivity(unchecked)
    var activationCancellables: Set<AnyCancellable> = []

    /// Where this behavior sits among its host's children; -1 when it has no host.
    @exclusivity(unchecked)
    var slot = -1

    /// What follows this behavior's activations from outside, in the order it was added.
    @exclusivity(unchecked)
    var activationObservers: [any ActivationObserver] = []

    /// Creates a detached behavior.
    public init() {
        state = .detached
    }

    init(state: ActivityState) {
        self.state = state
    }

    /// Attaches this behavior to `host`, moving it there if it is hosted elsewhere.
    ///
    /// If `host` is active, this behavior (and its subtree) activates. Attaching to the current host again
    /// does nothing. Called from inside a lifecycle hook, the change runs once the current change completes,
    /// and the result is ``AttachmentResult/queued(_:)``: the request is checked then, against the tree that
    /// the changes queued before it leave, not against the tree of the moment it was made.
    ///
    /// ```swift
    /// if case .refused(let reason) = screen.attach(to: root) { print(reason) }
    /// ```
    ///
    /// A refusal, now or when a queued request runs, changes nothing and does not trap; debug builds also print a
    /// warning to standard error the first time one happens, since a result left unread would hide it.
    ///
    /// - Parameter host: The scope to attach to.
    /// - Returns: ``AttachmentResult/accepted``, ``AttachmentResult/queued(_:)`` inside a hook, or
    ///   ``AttachmentResult/refused(_:)`` with the reason when the
    ///   attachment would break the tree, in which case nothing changes.
    @discardableResult
    public func attach(to host: Scope) -> AttachmentResult {
        attach(to: host, before: nil)
    }

    /// `attach(to:)`, placing this behavior right before `sibling` among the host's children when `sibling` is
    /// one of them as the change runs, and after every other child otherwise.
    @discardableResult
    func attach(to host: Scope, before sibling: Behavior?) -> AttachmentResult {
        guard Lifecycle.isApplying else {
            // Applied at once, so checking now is checking when it runs.
            if let refusal = attachmentError(to: host) {
                warnOfRefusedAttachment(to: host, refusal)
                return .refused(refusal)
            }
            Lifecycle.perform(.attach(self, to: host, nil, before: sibling))
            return .accepted
        }
        let pending = PendingAttachment()
        Lifecycle.perform(.attach(self, to: host, pending, before: sibling))
        return .queued(pending)
    }

    /// Detaches this behavior from its host, deactivating it first if it is active.
    ///
    /// Its own children stay hosted by it and become ``ActivityState/attached``. Detaching a detached
    /// behavior does nothing. Called from inside a lifecycle hook, the change runs once the current change
    /// completes, and whether the behavior has a host is decided then: a detach requested right after a queued
    /// attach detaches the behavior that attach hosted.
    ///
    /// ```swift
    /// if screen.detach() == .alreadyDetached { log("the screen was not shown") }
    /// ```
    ///
    /// A behavior whose host is being deallocated counts as hosted until that host lets it go, so detaching it
    /// then makes it leave properly, with its hooks, and reports ``DetachmentResult/detached``.
    ///
    /// - Returns: ``DetachmentResult/detached``, ``DetachmentResult/alreadyDetached`` if the behavior had no
    ///   host, or ``DetachmentResult/queued(_:)`` inside a hook.
    @discardableResult
    public func detach() -> DetachmentResult {
        guard Lifecycle.isApplying else {
            // Applied at once, so checking now is checking when it runs.
            guard isHosted else { return .alreadyDetached }
            Lifecycle.perform(.detach(self, nil))
            return .detached
        }
        let pending = PendingDetachment()
        Lifecycle.perform(.detach(self, pending))
        return .queued(pending)
    }

    /// A receiver whose cancellables live exactly as long as the current activation.
    ///
    /// ```swift
    /// session.events.sink { [self] in handle($0) }.store(in: whileActiveReceiver)
    /// ```
    public var whileActiveReceiver: WhileActiveReceiver {
        WhileActiveReceiver(behavior: self)
    }

    /// Called when this behavior is attached to a host; ``state`` is already ``ActivityState/attached``.
    open func willAttach() {}

    /// Called when this behavior activates; ``state`` is already ``ActivityState/active``.
    ///
    /// Start the work here and store what cancels it in `cancellables`. Each activation gets a new, empty set.
    ///
    /// - Parameter cancellables: Cancelled when this activation ends.
    open func willActivate(cancellables: inout Set<AnyCancellable>) {}

    /// Called when this behavior is about to deactivate, before its cancellables are cancelled.
    open func willDeactivate() {}

    /// Called after this behavior deactivated and its cancellables were cancelled.
    open func didDeactivate() {}

    /// Called when this behavior is about to leave its host; it is still ``ActivityState/attached``.
    open func willDetach() {}

    /// Called after this behavior left its host; it is ``ActivityState/detached``.
    open func didDetach() {}

    /// Whether this behavior belongs to a host, and so has to leave it before it is detached.
    ///
    /// Not `host != nil`: the weak `host` reads `nil` as soon as the host begins to be deallocated, while this
    /// behavior is still attached, maybe active, until the host's deinit orphans it. A detach decided from `host`
    /// alone would say that nothing changed, and the behavior would leave a moment later anyway.
    var isHosted: Bool {
        host != nil || (state != .detached && !(self is RootScope))
    }

    /// Says once, in debug builds, that an attachment was refused: the result that tells it may go unread.
    func warnOfRefusedAttachment(to host: Scope, _ refusal: AttachmentError) {
        Self.attachmentRefusal.emit(
            "attach(to:) refused to attach \(type(of: self)) to \(type(of: host)): \(refusal.reason). "
                + "Nothing changed. Check the AttachmentResult that attach returns, or the outcome of a queued one.")
    }

    /// Printed by debug builds the first time an attachment is refused.
    private static let attachmentRefusal = RuntimeWarning()

    /// Why attaching to `candidate` would break the tree, if it would.
    func attachmentError(to candidate: Scope) -> AttachmentError? {
        if self is RootScope { return .rootScopeCannotBeAttached }
        var ancestor: Scope? = candidate
        while let node = ancestor {
            if node === self { return node === candidate ? .cannotAttachToItself : .cannotAttachToDescendant }
            ancestor = node.host
        }
        return nil
    }
}
