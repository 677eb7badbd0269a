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
        // nil: nothing to render now. Otherwise the state to render and whether this thread became the deliverer.
        let firstRender = withLockUnlessInTransaction { () -> (state: State, becameDeliverer: Bool)? in
            guard subscribers.insert(subscriber, for: target, replacingLive: replacingLive) else { return nil }
            let inTransaction = transactionOwner.load(ordering: .relaxed) == thread
            if inTransaction || (deliverer != 0 && deliverer != thread) {
                hasPendingFirstRenders = true
                return nil
            }
            // Either nobody is delivering, or this thread is, further up the stack (a render subscribing), and
            // its current snapshot does not include the new subscriber.
            subscriber.deliveredVersion = version
            let becameDeliverer = deliverer == 0
            if becameDeliverer { deliverer = thread }
            return (current, becameDeliverer)
        }
        guard let firstRender else { return }
        subscriber.receive(target, firstRender.state)
        if firstRender.becameDeliverer {
            // Delivers only what was committed meanwhile: everyone else already has this version.
            deliver(Round(state: firstRender.state, version: subscriber.deliveredVersion, subscribers: .empty))
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
