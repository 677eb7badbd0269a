public import Synchronization

extension ViewModel {
    /// Runs `body` as a transaction, joining the running one when called from inside it on this thread.
    @inlinable
    @inline(__always)
    final func perform<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let thread = ThreadID.current
        if transactionOwner.load(ordering: .relaxed) == thread {
            return try performNested(body)
        }
        var result: R?
        var round: Round?
        try lock.withLock { _ throws(E) in
            transactionOwner.store(thread, ordering: .relaxed)
            let before = current
            do throws(E) {
                result = try body()
            } catch {
                current = before
                round = finishTransaction(changed: false, on: thread)
                throw error
            }
            round = finishTransaction(changed: current != before, on: thread)
        }
        if let round { deliver(round) }
        return result!
    }

    /// Runs `body` inside the transaction this thread is already running; rolls back only `body`'s changes
    /// if it throws.
    @inlinable
    final func performNested<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let saved = current
        let savedAssignments = assignments
        do throws(E) {
            return try body()
        } catch {
            current = saved
            assignments = savedAssignments
            throw error
        }
    }

    /// Ends the transaction running under the lock. If this thread should now deliver, makes it the deliverer
    /// and returns the first round to deliver.
    ///
    /// - Returns: `nil` when there is nothing to say, nobody to tell, or another delivery loop (maybe this
    ///   thread's, further up the stack) will pick the new version up in its next round.
    @inlinable
    @inline(__always)
    final func finishTransaction(changed: Bool, on thread: UInt) -> Round? {
        transactionOwner.store(0, ordering: .relaxed)
        assignments = 0
        if changed { version &+= 1 }
        guard changed || hasPendingFirstRenders, deliverer == 0, !subscribers.isEmpty else { return nil }
        deliverer = thread
        return nextRound()
    }

    /// One state to deliver to one snapshot of the subscribers.
    @usableFromInline
    struct Round {
        @usableFromInline let state: State
        @usableFromInline let version: UInt64
        @usableFromInline let subscribers: SubscriberList<State>

        @inlinable
        init(state: State, version: UInt64, subscribers: SubscriberList<State>) {
            self.state = state
            self.version = version
            self.subscribers = subscribers
        }
    }

    /// Takes the next round for the deliverer. Called under the lock.
    @inlinable
    final func nextRound() -> Round {
        hasPendingFirstRenders = false
        return Round(state: current, version: version, subscribers: subscribers)
    }

    /// Delivers `first`, then every newer state, one round per version, until none is left; then gives up the
    /// deliverer role. Called by the deliverer, without the lock.
    @inlinable
    final func deliver(_ first: Round) {
        var round = first
        while true {
            let sawDead = round.subscribers.deliver(round.state, version: round.version)
            let delivered = round.version
            if sawDead {
                // Release the snapshot first, so that pruning does not copy the list.
                round = Round(state: round.state, version: delivered, subscribers: .empty)
            }
            var next: Round?
            lock.withLock { _ in
                if sawDead { subscribers.removeDeadSubscribers() }
                if version != delivered || hasPendingFirstRenders {
                    next = nextRound()
                } else {
                    deliverer = 0
                }
            }
            guard let next else { return }
            round = next
        }
    }

    /// Runs `body` with exclusive access to the guarded fields.
    @inlinable
    final func withLockUnlessInTransaction<R>(_ body: () -> R) -> R {
        if transactionOwner.load(ordering: .relaxed) == ThreadID.current {
            return body()
        }
        var result: R?
        lock.withLock { _ in result = body() }
        return result!
    }
}
