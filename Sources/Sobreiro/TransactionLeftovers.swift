public import SobreiroPrimitives
import Synchronization

/// What a transaction leaves to do once it unlocks, gathered under the model's lock while it runs.
///
/// Inside a transaction the model's lock is held, so nothing that can run user code may happen there: letting go
/// of an entry or of a state (whose `deinit` may use the model), waiting for a call that another thread runs (that
/// call may wait for the lock), or rendering a view. The transaction collects that work here and does it after it
/// unlocks, in this order: waits and releases, then first renders.
@usableFromInline
struct TransactionLeftovers<State: ViewState> {
    /// Entries let go of or ended inside the transaction: their running calls are waited for, then they are
    /// released.
    @usableFromInline
    var released: ReleasedSubscribers<State> = .none

    /// Whether some of `released` joined the model's `leaving` entries, to forget once their calls are over.
    @usableFromInline
    var isLeaving = false

    /// Drafts that nested transactions rolled back.
    @usableFromInline
    var droppedStates: ContiguousArray<State> = []

    /// Subscriptions made inside the transaction, each rendered the committed state once it ends, with whether
    /// the transaction claimed its calls under the lock (see `ViewModel.takeLeftovers(on:)`).
    @usableFromInline
    var firstRenders:
        ContiguousArray<
            (subscriber: SubscriptionRecord<State>, isClaimed: Bool, predecessor: SubscriptionRecord<State>?)
        > = []

    /// Work of part models that the transaction committed or wrote (see `ViewModel+Parts.swift`): their deliveries,
    /// and what they let go of.
    @usableFromInline
    var afterUnlock: [() -> Void] = []

    @inlinable
    init() {}
}

extension ViewModel {
    /// Keeps `subscriber`'s first render for the end of the transaction running on this thread. Called under the
    /// lock, by that transaction.
    @inlinable
    final func renderWhenTransactionEnds(
        _ subscriber: SubscriptionRecord<State>, after predecessor: SubscriptionRecord<State>? = nil
    ) {
        lock.assertHeld()
        leftovers.firstRenders.append((subscriber, false, predecessor))
        hasLeftovers = true
    }

    /// Keeps `state`, which a nested transaction rolled back, until the transaction running on this thread unlocks.
    /// Called under the lock, by that transaction.
    @inlinable
    final func releaseWhenTransactionEnds(_ state: consuming State) {
        lock.assertHeld()
        leftovers.droppedStates.append(state)
        hasLeftovers = true
    }

    /// Takes what the ending transaction left to do; called under the lock, once the state is committed.
    ///
    /// Claims the calls of the subscriptions made in the transaction for this thread before any deliverer can
    /// see them: a subscription made in a transaction is an ordinary subscription delayed to the unlock, rendered
    /// by this thread before `write` returns even while another thread delivers. An entry that another thread
    /// is calling (a live one that the subscribe kept) is caught up after that call instead.
    @inlinable
    final func takeLeftovers(on thread: UInt) -> TransactionLeftovers<State> {
        lock.assertHeld()
        hasLeftovers = !parts.isEmpty  // see `ViewModel+Parts.swift`
        var taken = TransactionLeftovers<State>()
        swap(&taken, &leftovers)
        for index in taken.firstRenders.indices {
            taken.firstRenders[index].isClaimed = taken.firstRenders[index].subscriber.beginCall(on: thread)
        }
        return taken
    }

    /// Whether a transaction of this model runs on this thread, which then holds the model's lock.
    package final var runsTransactionOnThisThread: Bool {
        transactionOwner.load(ordering: .relaxed) == currentThread
    }

    /// Keeps `object` until the transaction running on this thread has unlocked, and lets go of it then, with the
    /// entries it released: for a module built on the model whose objects run user code as they go. Call it only
    /// where ``runsTransactionOnThisThread``.
    package final func releaseAfterTransaction(_ object: AnyObject) {
        lock.assertHeld()
        leftovers.released.park(object)
        hasLeftovers = true
    }

    /// Does what a transaction left to do, with no lock held.
    @inlinable
    final func finish(_ leftovers: consuming TransactionLeftovers<State>) {
        var released = ReleasedSubscribers<State>.none
        swap(&released, &leftovers.released)
        released.settle()
        _ = consume released
        if leftovers.isLeaving { forgetFinishedCalls() }
        leftovers.droppedStates = []
        for (subscriber, isClaimed, predecessor) in leftovers.firstRenders {
            if isClaimed, handedOver(subscriber, after: predecessor) { continue }
            catchUp(subscriber, isClaimed: isClaimed)
        }
        for work in leftovers.afterUnlock { work() }
    }
}
