import Synchronization

extension ViewModel {
    /// Adds `subscriber` for `target` and gives it the current state.
    ///
    /// The first state comes at once on this thread, unless another thread is delivering at this moment
    /// (that thread then delivers it, in order, after its current round) or this thread is inside a
    /// transaction of this model (it comes when the transaction ends, never as an uncommitted draft).
    /// A live subscription of `target` is kept as it is, or replaced if `replacingLive` is set.
    func add(_ subscriber: Subscriber<State>, for target: AnyObject, replacingLive: Bool) {
        let thread = ThreadID.current
        let inTransaction = transactionOwner.load(ordering: .relaxed) == thread
        if !inTransaction { lock.lock() }
        guard subscribers.insert(subscriber, for: target, replacingLive: replacingLive) else {
            if !inTransaction { lock.unlock() }
            return
        }
        if inTransaction || (deliverer != 0 && deliverer != thread) {
            hasPendingFirstRenders = true
            if !inTransaction { lock.unlock() }
            return
        }
        // This thread may deliver: either nobody is delivering, or this thread is, further up the stack (a
        // render subscribing), whose current snapshot does not include the new subscriber.
        let state = current
        let startVersion = version
        subscriber.deliveredVersion = startVersion
        let becomesDeliverer = deliverer == 0
        if becomesDeliverer { deliverer = thread }
        lock.unlock()
        subscriber.receive(target, state)
        guard becomesDeliverer else { return }
        lock.lock()
        deliverNewerStatesAndUnlock(after: startVersion)
    }

    /// Removes the subscription of `target`, if any. It receives nothing after this returns, unless a
    /// delivery on another thread is already calling it.
    func removeSubscriber(for target: AnyObject) {
        withLockUnlessInTransaction { subscribers.remove(target: target) }
    }

    /// Removes exactly `subscriber`, leaving any newer subscription of the same target in place.
    func remove(_ subscriber: Subscriber<State>) {
        withLockUnlessInTransaction { subscribers.remove(subscriber) }
    }
}
