public import Synchronization

extension ViewModel {
    /// Subscribes `target` with `receive`, which gets the current state and then every new one.
    ///
    /// - Parameters:
    ///   - key: The subscription's identity in the list; `nil` for the identity of `target`.
    ///   - replacingLive: Whether a live subscription under the same key is replaced or kept.
    /// - Returns: The token of the subscription now in place: the new one, or the live one that was kept.
    @inlinable
    package final func subscription(
        of target: AnyObject,
        key: ObjectIdentifier? = nil,
        replacingLive: Bool,
        receive: @escaping @Sendable (AnyObject, State) -> Void
    ) -> StateSubscription {
        let subscriber = Subscriber(target: target, owner: self, key: key, receive: receive)
        return add(subscriber, for: target, replacingLive: replacingLive)
    }

    /// Adds `subscriber` for `target` and gives it the current state.
    ///
    /// The first state comes at once on this thread, unless another thread is delivering at this moment
    /// (that thread then delivers it, in order, after its current round) or this thread is inside a
    /// transaction of this model (it comes when the transaction ends, never as an uncommitted draft).
    /// A live subscription under the same key is kept as it is, or replaced if `replacingLive` is set.
    ///
    /// - Returns: The subscription now in place.
    @inlinable
    final func add(_ subscriber: Subscriber<State>, for target: AnyObject, replacingLive: Bool) -> Subscriber<State> {
        let thread = ThreadID.current
        var kept: Subscriber<State>?
        // nil: nothing to render now. Otherwise the state to render and, if this thread became the deliverer,
        // the round it must finish.
        let firstRender = withLockUnlessInTransaction { () -> (state: State, round: Round?)? in
            kept = subscribers.insert(subscriber, replacingLive: replacingLive)
            guard kept == nil else { return nil }
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
        if let kept { return kept }
        if let firstRender {
            subscriber.receive(target, firstRender.state)
            if let round = firstRender.round {
                deliver(round, on: thread, isTracing: traceFlag.isOn)
            }
        }
        return subscriber
    }

    /// Removes the subscription made under the identity of `target`, if any. It receives nothing after this
    /// returns, unless a delivery on another thread is already calling it.
    @inlinable
    final func removeSubscriber(for target: AnyObject) {
        withLockUnlessInTransaction { subscribers.remove(target: target) }
    }

    /// Removes every subscription of `target`: the whole state and every projection.
    @inlinable
    final func removeAllSubscriptions(of target: AnyObject) {
        withLockUnlessInTransaction { subscribers.removeAll(target: target) }
    }

    /// Removes exactly `subscriber`, leaving any newer subscription of the same target in place.
    @inlinable
    final func remove(_ subscriber: Subscriber<State>) {
        withLockUnlessInTransaction { subscribers.remove(subscriber) }
    }
}
