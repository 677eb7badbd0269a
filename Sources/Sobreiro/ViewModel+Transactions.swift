public import Synchronization

extension ViewModel {
    /// Runs `body` as a transaction, joining the running one when called from inside it on this thread.
    @inlinable
    func perform<R>(_ body: () throws -> R) rethrows -> R {
        let thread = ThreadID.current
        if transactionOwner.load(ordering: .relaxed) == thread {
            let saved = current
            let savedAssignments = assignments
            do {
                return try body()
            } catch {
                current = saved
                assignments = savedAssignments
                throw error
            }
        }
        lock.lock()
        transactionOwner.store(thread, ordering: .relaxed)
        let before = current
        let result: R
        do {
            result = try body()
        } catch {
            current = before
            finishTransactionAndUnlock(changed: false, on: thread)
            throw error
        }
        finishTransactionAndUnlock(changed: current != before, on: thread)
        return result
    }

    /// Ends the transaction that holds the lock, releases the lock, and, if this thread becomes the deliverer,
    /// delivers until no newer state is left.
    @inlinable
    func finishTransactionAndUnlock(changed: Bool, on thread: UInt) {
        transactionOwner.store(0, ordering: .relaxed)
        assignments = 0
        let deliveredVersion = version
        if changed { version &+= 1 }
        guard changed || hasPendingFirstRenders, deliverer == 0, !subscribers.isEmpty else {
            // Nothing to say, nobody to tell, or the active deliverer (maybe this thread, further up the stack)
            // will pick the new version up when it finishes its current round.
            lock.unlock()
            return
        }
        deliverer = thread
        deliverNewerStatesAndUnlock(after: deliveredVersion)
    }

    /// Delivers every state newer than `deliveredVersion`, one round per version, until none is left, then
    /// gives up the deliverer role and the lock. Called with the lock held by the deliverer.
    @inlinable
    func deliverNewerStatesAndUnlock(after deliveredVersion: UInt64) {
        var delivered = deliveredVersion
        while version != delivered || hasPendingFirstRenders {
            hasPendingFirstRenders = false
            let snapshot = subscribers
            let state = current
            delivered = version
            lock.unlock()
            let sawDead = snapshot.deliver(state, version: delivered)
            lock.lock()
            if sawDead { subscribers.removeDeadSubscribers() }
        }
        deliverer = 0
        lock.unlock()
    }

    /// Runs `body` with exclusive access to the guarded fields.
    func withLockUnlessInTransaction<R>(_ body: () -> R) -> R {
        if transactionOwner.load(ordering: .relaxed) == ThreadID.current {
            return body()
        }
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
