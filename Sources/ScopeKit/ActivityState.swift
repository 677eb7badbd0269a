/// Where a ``Behavior`` stands in its lifecycle.
///
/// | state | meaning |
/// | --- | --- |
/// | `detached` | no host |
/// | `attached` | hosted by a scope that is not active |
/// | `active` | hosted by an active scope; its work runs |
public enum ActivityState: Sendable, Equatable {
    /// The behavior has no host.
    case detached
    /// The behavior has a host that is not active.
    case attached
    /// The behavior's host is active, and so is the behavior.
    case active
}

/// Why ``Behavior/attach(to:)`` refused to attach a behavior. A refused attachment changes nothing.
public enum AttachmentError: Error, Sendable, Equatable {
    /// A ``RootScope`` is the top of a tree and never has a host.
    case rootScopeCannotBeAttached
    /// A scope cannot host itself.
    case cannotAttachToItself
    /// A scope cannot be hosted by one of its own descendants: the tree would become a cycle.
    case cannotAttachToDescendant

    /// Why the tree refuses it, and what to do instead, for a warning.
    var reason: String {
        switch self {
        case .rootScopeCannotBeAttached:
            "a RootScope is the top of a tree and never has a host; attach a Scope instead"
        case .cannotAttachToItself:
            "a scope cannot host itself"
        case .cannotAttachToDescendant:
            "the host is a descendant of the behavior, so the tree would become a cycle; detach the host first"
        }
    }
}

/// What ``Behavior/attach(to:)`` did with a request.
public enum AttachmentResult: Sendable, Equatable {
    /// The behavior is attached to the host. Also the answer when it was attached there already.
    case accepted
    /// Nothing changed, for the reason given.
    case refused(AttachmentError)
    /// The request was made inside a lifecycle hook, so it waits until the current change of the tree
    /// completes. It is checked again then; ``PendingAttachment/outcome`` tells what happened.
    case queued(PendingAttachment)
}

/// An attachment requested inside a lifecycle hook, which runs once the current change of the tree completes.
///
/// ```swift
/// if case .queued(let pending) = detail.attach(to: screen) {
///     // later, once the tree has settled:
///     assert(pending.outcome == .accepted)
/// }
/// ```
@MainActor
public final class PendingAttachment: Sendable, Equatable {
    /// What became of a queued attachment.
    public enum Outcome: Sendable, Equatable {
        /// It has not run yet.
        case pending
        /// It ran and attached the behavior.
        case accepted
        /// It ran, but the changes made before it would have made it break the tree, so it changed nothing.
        case refused(AttachmentError)
    }

    /// What became of the attachment so far.
    public internal(set) var outcome: Outcome = .pending

    init() {}

    /// Two values are equal when they are the same request.
    public nonisolated static func == (lhs: PendingAttachment, rhs: PendingAttachment) -> Bool {
        lhs === rhs
    }
}
