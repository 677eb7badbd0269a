public import Synchronization

/// One subscription to a view model: of a view, of another model, or of a projection of the state.
///
/// Every `subscribe` returns one. Keeping it is optional: dropping it cancels nothing, and the subscription
/// lasts until ``cancel()``, an `unsubscribe`, or the end of the subscriber or the model. Cancel it from any
/// thread or actor; in a ScopeKit behavior, store it among the cancellables of an activation so that it ends
/// with that activation:
///
/// ```swift
/// override func willActivate(cancellables: inout Set<AnyCancellable>) {
///     viewModel.subscribe(view: label).store(in: &cancellables)
/// }
/// ```
///
/// Two tokens are equal when they are the same instance.
public class StateSubscription: @unchecked Sendable, Hashable {
    /// Set once the subscription ends; a render scheduled for later checks it.
    @usableFromInline
    let isCancelled = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    /// Ends the subscription: the subscriber receives nothing more from it, except a render already running
    /// on another thread. Calling it again, or after the subscription was replaced or ended otherwise, does
    /// nothing.
    public func cancel() {}

    /// Whether a thread waits in ``cancel()`` for a call of this subscription that another thread is running.
    /// Lets tests release that call only once the cancel is known to wait for it.
    package var isWaitedForByCancel: Bool { false }

    /// Two values are equal when they are the same instance.
    public static func == (lhs: StateSubscription, rhs: StateSubscription) -> Bool {
        lhs === rhs
    }

    /// Hashes the identity of the instance.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
