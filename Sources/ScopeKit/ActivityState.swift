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
}

/// What ``Behavior/attach(to:)`` did with a request.
public enum AttachmentResult: Sendable, Equatable {
    /// The behavior is attached to the host: now, or, when asked from inside a lifecycle hook, as soon as
    /// the current change of the tree completes. Also the answer when it was attached there already.
    ///
    /// A request from inside a hook is checked again when it runs: if the changes made in between would make
    /// it break the tree, it is dropped.
    case accepted
    /// Nothing changed, for the reason given.
    case refused(AttachmentError)
}
