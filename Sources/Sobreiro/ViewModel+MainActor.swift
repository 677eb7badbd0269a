import SobreiroPrimitives

extension ViewModel {
    /// Stops rendering into a main-actor `view`. Does nothing if `view` is not subscribed. A render already
    /// scheduled for it is dropped.
    ///
    /// - Parameter view: A view passed to `subscribe(view:)` before.
    @MainActor
    public final func unsubscribe<V: MainActorStatefulView>(view: V) where V.State == State {
        removeSubscriber(for: view)
    }
}

extension ViewModel {
    /// Makes the transaction ending on this thread bring the model's followers on the main actor up to date once it
    /// unlocks, if it runs on the main queue. Called under the lock by a transaction that committed a change while
    /// another thread delivers, and so only asked that thread for another round.
    ///
    /// That thread may be held up for as long as a render on it takes, and a write on the main actor must reach the
    /// main actor's views, observed objects and routes before it returns, as it does when nobody else delivers.
    /// Each follower is caught up as a new subscription is (see `catchUp(_:isClaimed:)`): this thread owns its calls
    /// meanwhile, waiting first for a hand-over to it that the deliverer is running, a short call with no view code
    /// in it. So the follower is never called by two threads at once, nor handed a state older than one it has: the
    /// deliverer skips it while this thread owns it, and then finds that it has seen the versions it carries.
    @usableFromInline
    @inline(never)
    final func catchUpMainActorFollowersWhenTransactionEnds() {
        lock.assertHeld()
        guard MainQueue.isCurrent else { return }
        switch subscribers {
        case .empty:
            return
        case .single(let subscriber):
            if subscriber.mainActorHop != nil { renderWhenTransactionEnds(subscriber) }
        case .many(let many):
            for subscriber in many.entries where subscriber.mainActorHop != nil {
                renderWhenTransactionEnds(subscriber)
            }
        }
    }
}
