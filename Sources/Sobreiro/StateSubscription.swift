public import SobreiroPrimitives
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

    /// The hop that hands this subscription's states to the main actor, if it has one: a write made on the main
    /// actor while another thread delivers then brings the subscription up to date itself, and has the hop hand
    /// over at once what waits in it, before the write returns (see
    /// `ViewModel.catchUpMainActorFollowersWhenTransactionEnds()`). Set by the hop's `connect`; only code on the
    /// main queue reads or writes it, one block at a time, so it needs no lock.
    @usableFromInline
    @exclusivity(unchecked)
    package var mainActorHop: (any MainActorHandOver)?

    @usableFromInline
    init() {}

    /// Ends the subscription: once this returns, its view or handler is never called again.
    ///
    /// A call that another thread is already running finishes first: `cancel()` waits for it to return. It
    /// does not wait in three cases, where waiting could never end:
    /// - called from that very call (a handler ending its own subscription): the call simply finishes;
    /// - called inside a transaction of the same model on this thread: the transaction holds the lock that the
    ///   call may need, so the wait moves to the end of the transaction, after it unlocks, and `write` returns
    ///   once the call has returned;
    /// - when the running call waits for this thread, directly or through other threads: in a cancel of its
    ///   own, or for the lock of a model whose transaction this thread runs. The call may then still be running
    ///   when this returns, and it is the last one.
    ///
    /// A handler must not otherwise block on the thread that cancels it (a lock of its own, a synchronous hop to
    /// the main queue): the two would wait for each other. Calling it again, or after the subscription was
    /// replaced or ended otherwise, does nothing.
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
