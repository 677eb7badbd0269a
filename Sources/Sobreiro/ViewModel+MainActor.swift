public import SobreiroPrimitives

extension ViewModel {
    /// Subscribes a renderer isolated to the main actor and renders the current state into it at once.
    ///
    /// A write made on the main queue that commits a change renders `view` before it returns, even while another
    /// thread is delivering this model's states, unless `view` is rendering: a write made from its own `render`
    /// renders it right after that render returns, never inside it. (A write that commits nothing, being equal to
    /// the state or rolled back, brings nobody up to date: the state it found arrives as the other thread
    /// delivers it.) A write on any other thread schedules the render on the main actor;
    /// writes that land before that render runs are coalesced, so `view` renders only the latest of them and never
    /// ends on a stale state, even if the model is released meanwhile. The model holds `view` weakly.
    ///
    /// ```swift
    /// @MainActor func viewDidLoad() {
    ///     viewModel.subscribe(view: self)
    /// }
    /// ```
    ///
    /// - Parameter view: The main-actor renderer to keep up to date.
    /// - Returns: A token that ends the subscription from any thread; once it is cancelled on the main actor, no
    ///   render follows, not even one already scheduled.
    @inlinable
    @MainActor
    @discardableResult
    public final func subscribe<V: MainActorStatefulView>(view: V) -> StateSubscription where V.State == State {
        MainActorStateHop.connect(view, render: { unsafeDowncast($0, to: V.self).render(state: $1) }) { receive in
            subscription(of: view, replacingLive: false, receive: receive)
        }
    }

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
