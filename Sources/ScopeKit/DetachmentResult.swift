/// What ``Behavior/detach()`` did with a request.
///
/// ```swift
/// switch screen.detach() {
/// case .detached: break                   // it left its host; its hooks have run
/// case .alreadyDetached: break            // it had no host: nothing changed
/// case .queued(let pending): watch(pending)  // asked from a hook: it runs once the current change completes
/// }
/// ```
public enum DetachmentResult: Sendable, Equatable {
    /// The behavior left its host, deactivating first if it was active.
    case detached
    /// The behavior had no host, so nothing changed.
    case alreadyDetached
    /// The request was made inside a lifecycle hook, so it waits until the current change of the tree
    /// completes. Whether the behavior has a host then is known only when it runs:
    /// ``PendingDetachment/outcome`` tells what happened.
    case queued(PendingDetachment)
}

/// A detachment requested inside a lifecycle hook, which runs once the current change of the tree completes.
///
/// It is decided when it runs, against the tree that the changes queued before it leave: a detach requested
/// right after a queued attach of the same behavior detaches it.
///
/// ```swift
/// if case .queued(let pending) = detail.detach() {
///     // later, once the tree has settled:
///     assert(pending.outcome == .detached)
/// }
/// ```
@MainActor
public final class PendingDetachment: Sendable, Equatable {
    /// What became of a queued detachment.
    public enum Outcome: Sendable, Equatable {
        /// It has not run yet.
        case pending
        /// It ran and detached the behavior from its host.
        case detached
        /// It ran, but the behavior had no host by then, so it changed nothing.
        case alreadyDetached
    }

    /// What became of the detachment so far.
    public internal(set) var outcome: Outcome = .pending

    init() {}

    /// Two values are equal when they are the same request.
    public nonisolated static func == (lhs: PendingDetachment, rhs: PendingDetachment) -> Bool {
        lhs === rhs
    }
}
