public import Synchronization

extension ViewModel {
    /// Adds `subscriber` for `target` and gives it the current state.
    ///
    /// The first state comes at once on this thread, unless another thread is delivering at this moment
    /// (that thread then delivers it, in order, after its current round) or this thread is inside a
    /// transaction of this model (it comes when the transaction ends, never as an uncommitted draft).
    /// A live subscription of `target` is kept as it is, or replaced if `replacingLive` is set.
    @inlinable
    final func add(_ subscriber: Subscriber<State>, for target: AnyObject, replacingLive: Bool) {
        let thread = ThreadID.current
        // nil: nothing to render now. Otherwise the state to render and, if this thread became the deliverer,
        // the round it must finish.
        let firstRender = withLockUnlessInTransaction { () -> (state: State, round: Round?)? in
            guard subscribers.insert(subscriber, for: target, replacingLive: replacingLive) else { return nil }
            if transactionOwner.load(ordering: .relaxed) == thread {
                hasPendingFirstRenders = true
                return nil
            }
            // A render subscribing: this thread already delivers, and its current snapshot does not include the
            // new subscriber. Otherwise, if another thread delivers, it gives the newcomer its first state.
            let isReentrant = isDelivering(on: thread)
            guard isReentrant || becomeDelivererOrRequestRound(on: thread) else { return nil }
            subscriber.deliveredVersion = version
            guard !isReentrant else { return (current, nil) }
            // Everyone else already has this version: the new deliverer's round only finishes its turn.
            let round = Round(
                state: current,
                version: version,
                subscribers: .empty,
                requests: deliveryRequests.load(ordering: .relaxed)
            )
            return (current, round)
        }
        guard let firstRender else { return }
        subscriber.receive(target, firstRender.state)
        if let round = firstRender.round {
            deliver(round, on: thread)
        }
    }

    /// Removes the subscription of `target`, if any. It receives nothing after this returns, unless a
    /// delivery on another thread is already calling it.
    @inlinable
    final func removeSubscriber(for target: AnyObject) {
        withLockUnlessInTransaction { subscribers.remove(target: target) }
    }

    /// Removes exactly `subscriber`, leaving any newer subscription of the same target in place.
    @inlinable
    final func remove(_ subscriber: Subscriber<State>) {
        withLockUnlessInTransaction { subscribers.remove(subscriber) }
    }
}
