public import SobreiroPrimitives

extension ViewModel {
    /// Subscribes `target` with `receive`, which gets the current state and then every new one, each with the
    /// version the model committed it at (a follower that must later tell whether the state it received is still
    /// the committed one compares versions rather than states, whose `==` may be costly or not even reflexive).
    /// `receive` may drop a state before it reaches the subscriber's code, as a projection whose value did not
    /// change does; it calls `notice.willCall(target)` right before that code runs, so the trace hears of it.
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
        _ receive: @escaping @Sendable (_ target: AnyObject, _ state: State, _ version: UInt64, CallNotice) -> Void
    ) -> StateSubscription {
        let subscriber = SubscriptionRecord(target: target, owner: self, key: key, receive: receive)
        return add(subscriber, for: target, replacingLive: replacingLive)
    }

    /// Adds `subscriber` for `target` and renders the current state into it before returning.
    ///
    /// The subscribing thread renders the first state itself, even while another thread delivers to the other
    /// subscribers: it owns the subscriber's calls until it has caught up with the model, so the deliverer skips
    /// it meanwhile and it is never called by two threads at once. A state committed during that render is
    /// rendered next, by this thread, before this returns. A live subscription under the same key is kept as it
    /// is, or replaced if `replacingLive` is set; a kept one is caught up the same way, after any call that
    /// another thread runs for it. An entry of the same target that was let go of while another thread called it
    /// has that call waited for before the first render. Inside a transaction of this model on this thread, all that happens when the
    /// transaction unlocks, never with an uncommitted draft. From a delivery of this model on this thread (a
    /// render or handler that subscribes), the first state comes in the deliverer's next round instead, right
    /// after the current call: a view that subscribes itself again is never entered from inside its own render.
    ///
    /// - Returns: The subscription now in place.
    @inlinable
    final func add(_ subscriber: SubscriptionRecord<State>, for target: AnyObject, replacingLive: Bool)
        -> SubscriptionRecord<State>
    {
        let thread = ThreadID.current
        // Returned rather than assigned to a captured variable, so that the list's change inlines here and the
        // model and the entry are not retained across it (each retain of an object held weakly is a slow one).
        let (kept, first) = changeSubscribers { released -> (SubscriptionRecord<State>?, FirstRender<State>) in
            guard let kept = subscribers.insert(subscriber, replacingLive: replacingLive, released: &released) else {
                return (nil, firstRender(of: subscriber, isNew: true, on: thread))
            }
            return (kept, firstRender(of: kept, isNew: false, on: thread))
        }
        switch consume first {
        case .inNextRound, .whenTransactionEnds:
            break
        case .afterRunningCall:
            catchUp(kept ?? subscriber, isClaimed: false)
        case .now(let state, let version, let predecessor):
            guard !handedOver(subscriber, after: predecessor) else { break }
            renderFirstStates((state, version), into: subscriber, of: target)
        }
        return kept ?? subscriber
    }

    /// Renders every state that `subscriber` has not seen yet, until it has caught up with the model.
    ///
    /// A call that another thread runs for it (its own first render, or a delivery) is waited for first, so that
    /// the subscriber is never called by two threads at once; when that wait cannot happen (the call runs further
    /// up this thread's stack, or waits for this thread) that call's thread catches up instead.
    ///
    /// - Parameter isClaimed: Whether this thread already owns the subscriber's calls.
    @inlinable
    final func catchUp(_ subscriber: SubscriptionRecord<State>, isClaimed: Bool) {
        guard let target = subscriber.target else {
            if isClaimed { subscriber.endCall() }
            return
        }
        if !isClaimed {
            let thread = ThreadID.current
            while !subscriber.beginCall(on: thread) {
                guard subscriber.slot.waitForRunningCall() else { return }
            }
        }
        renderFirstStates(nil, into: subscriber, of: target)
        // A deliverer that took the calls first, after the wait, may have left the latest state waiting in a hop to
        // the main actor: on the main actor, it is handed over now rather than when the main queue gets to it.
        if let hop = MainQueue.isCurrent ? subscriber.mainActorHop : nil {
            MainActor.assumeIsolated { hop.handOverWaitingValue() }
        }
    }

    /// Renders `first` into a subscriber that this thread owns, then every state committed meanwhile, until it
    /// has caught up with the model; then hands the subscriber over to the deliverer.
    ///
    /// - Parameter first: The state to render first, already recorded as delivered; `nil` to start from the
    ///   newest state that the subscriber has not seen, if any.
    @inlinable
    final func renderFirstStates(
        _ first: (state: State, version: UInt64)?,
        into subscriber: SubscriptionRecord<State>,
        of target: AnyObject
    ) {
        var wasWaitedFor = false
        var pending = first ?? nextFirstState(for: subscriber, wasWaitedFor: &wasWaitedFor)
        while let (state, version) = pending {
            subscriber.call(target, state, version: version, isTracing: traceFlag.isOn)
            pending = nextFirstState(for: subscriber, wasWaitedFor: &wasWaitedFor)
        }
        if wasWaitedFor {
            CallWaiting.wakeAll()
            forgetFinishedCalls()
        }
    }

    /// The next state to render into `subscriber`, which this thread owns, while it catches up with the model; or
    /// `nil` after giving the subscriber up, under the lock, so that a round taken from then on finds it free, and
    /// one taken before carries a version it has seen.
    ///
    /// The caller holds the subscriber's target, so only a cancel can have ended the subscription: no weak load.
    ///
    /// - Parameter wasWaitedFor: Set when giving up finds a thread waiting for the call to end: the caller wakes
    ///   it once the lock is released.
    @inlinable
    @inline(__always)
    final func nextFirstState(
        for subscriber: SubscriptionRecord<State>, wasWaitedFor: inout Bool
    ) -> (state: State, version: UInt64)? {
        withModelLock {
            guard version > subscriber.deliveredVersion, !subscriber.hasEnded else {
                wasWaitedFor = subscriber.slot.giveUp()
                return nil
            }
            subscriber.deliveredVersion = version
            return (current, version)
        }
    }

    /// Removes the subscription made under the identity of `target`, if any. It receives nothing after this
    /// returns, and a call running on another thread has returned (see `StateSubscription.cancel()`).
    @inlinable
    final func removeSubscriber(for target: AnyObject) {
        changeSubscribers { subscribers.remove(target: target, released: &$0) }
    }

    /// Removes every subscription of `target`: the whole state and every projection.
    @inlinable
    final func removeAllSubscriptions(of target: AnyObject) {
        changeSubscribers { subscribers.removeAll(target: target, released: &$0) }
    }

    /// Removes exactly `subscriber`, leaving any newer subscription of the same target in place.
    /// Returns, or the transaction running on this thread unlocks, only after a call of `subscriber` that another
    /// thread runs has returned, even if another thread removed the entry first.
    @inlinable
    final func remove(_ subscriber: SubscriptionRecord<State>) {
        changeSubscribers { released in
            subscribers.remove(subscriber, released: &released)
            if released.isEmpty { released.append(subscriber) }
        }
    }
}
