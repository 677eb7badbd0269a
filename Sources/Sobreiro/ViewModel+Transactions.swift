public import SobreiroPrimitives
public import Synchronization

extension ViewModel {
    /// Runs `body` as a transaction, joining the running one when called from inside it on this thread.
    @inlinable
    @inline(__always)
    final func perform<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let thread = currentThread
        if transactionOwner.load(ordering: .relaxed) == thread {
            return try performNested(body)
        }
        if _slowPath(link != nil) { return try performAsPart(on: thread, body) }
        return try performOutermost(on: thread, body)
    }

    /// Runs `body` as a transaction of its own on `thread`, which runs none yet; then delivers what it committed.
    @inlinable
    @inline(__always)
    final func performOutermost<R, E: Error>(on thread: UInt, _ body: () throws(E) -> R) throws(E) -> R {
        var result: R?
        var failure: E?
        var changed = false
        // The committed state this transaction replaced, or its rolled-back draft: released after unlocking.
        var replaced: State?
        var leftovers: TransactionLeftovers<State>?
        #if DEBUG
            LockOrder.willLockForTransaction(self)
        #endif
        let round = withModelLock { () -> Round? in
            transactionOwner.store(thread, ordering: .relaxed)
            let outcome: Round?
            do throws(E) {
                result = try body()
                // `committed` is still the state before the transaction: only transactions change it, under this
                // lock. Comparing with it spares a copy of the state. The state's `==` may not touch the state, as
                // code running during a draft's change may not: a change it made would not be committed.
                // No draft access is under way once the body has returned.
                draftAccesses = 1
                changed = current != committed
                draftAccesses = 0
                outcome = commitAndClaimDelivery(changed: changed, on: thread, replaced: &replaced)
            } catch {
                var restored = committed
                swap(&current, &restored)
                replaced = consume restored
                failure = error
                outcome = commitAndClaimDelivery(changed: false, on: thread, replaced: &replaced)
            }
            // Rare: marked so, the compiler keeps the common path free of the spills this branch needs.
            if _slowPath(hasLeftovers) {
                // A model with part models keeps this flag set, so that its commits reach them here.
                if changed, !parts.isEmpty { commitPartsWithLeftovers(on: thread) }
                leftovers = takeLeftovers(on: thread)
            }
            return outcome
        }
        #if DEBUG
            LockOrder.didUnlockAfterTransaction(self)
        #endif
        replaced = nil
        if let leftovers = consume leftovers { finish(leftovers) }
        let isTracing = traceFlag.isOn
        // Consumed, so that the round moves into `deliver` instead of being copied (a retain and a release). Tested
        // before the trace, so that a transaction without a round, a duplicate write say, reaches its return
        // without carrying an empty round past the trace and testing it there.
        if let round = consume round {
            // Only a change claims a round: the transaction committed.
            if isTracing { Trace.record(.committed, about: self) }
            deliver(round, on: thread, isTracing: isTracing)
        } else if isTracing {
            Trace.record(failure != nil ? .rolledBack : changed ? .committed : .deduplicated, about: self)
        }
        if let failure { throw failure }
        return result!
    }

    /// Runs `body` inside the transaction this thread is already running; rolls back only `body`'s changes
    /// if it throws.
    @inlinable
    final func performNested<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        // Joined while a draft changes the state, `body` cannot touch it (that traps), so it has none to roll back;
        // and reading it now would copy a member mid-change.
        if _slowPath(draftAccesses != 0) { return try body() }
        if _slowPath(isWrittenThroughPart) { writtenInsidePartWrite() }
        var saved = current
        do throws(E) {
            return try body()
        } catch {
            swap(&current, &saved)
            // The lock is still held: the draft goes when the outer transaction unlocks.
            releaseWhenTransactionEnds(saved)
            throw error
        }
    }

    /// Ends the transaction running under the lock: commits the state if it changed, publishing it to readers, and
    /// claims delivery if subscribers must hear of it. Called under the lock.
    ///
    /// - Parameter replaced: Receives the committed state that a change replaces, to be released after unlocking.
    /// - Returns: The round this thread must deliver once the lock is released; `nil` when there is nothing to
    ///   say, nobody to tell, or an active deliverer (maybe this thread, further up the stack) will pick the new
    ///   state up in its next round.
    @inlinable
    @inline(__always)
    final func commitAndClaimDelivery(changed: Bool, on thread: UInt, replaced: inout State?) -> Round? {
        lock.assertHeld()
        transactionOwner.store(0, ordering: .relaxed)
        guard changed else { return nil }
        version &+= 1
        replaced = current
        snapshotLock.withLock {
            swap(&committed, &replaced!)
            committedSnapshotVersion = version
        }
        guard !subscribers.isEmpty else { return nil }
        return claimDelivery(on: thread)
    }

    /// Runs `body` in order with every transaction of this model, committing nothing: under the model's lock, or at
    /// once inside a transaction running on this thread, which holds it already. A transaction that another thread
    /// runs has either committed before `body` runs, or starts after it. `body` must run no user code.
    package final func orderedWithTransactions<R>(_ body: () -> R) -> R {
        withLockUnlessInTransaction(body)
    }

    /// Runs `body` holding the model's lock. A thread that finds it taken records, while it waits, that it waits
    /// for the thread running a transaction under it, so that a cancel in that transaction never waits for it.
    @inlinable
    @inline(__always)
    final func withModelLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try lock.withLock(willWait: { CallWaiting.willWaitForLock(self) }, didWait: CallWaiting.didWaitForLock, body)
    }

    /// Runs `body` with exclusive access to the guarded fields.
    @inlinable
    final func withLockUnlessInTransaction<R>(_ body: () -> R) -> R {
        if transactionOwner.load(ordering: .relaxed) == currentThread {
            return body()
        }
        #if DEBUG
            LockOrder.willLockBriefly(self)
        #endif
        // The body's result is returned as it is, not through an optional: generic code that runs this
        // unspecialized, as a subscription's cancel does, would look up the optional's metadata at each call.
        return withModelLock(body)
    }

    /// Runs `body` on the subscriber list with exclusive access, then lets go of the entries it moved into its
    /// argument once the lock is released: at once, or when the transaction running on this thread unlocks.
    @inlinable
    @inline(__always)
    final func changeSubscribers<R>(_ body: (inout ReleasedSubscribers<State>) -> R) -> R {
        // A part model changed inside a transaction of its parent on this thread: as inside its own, a first render
        // and what the change lets go of wait for the end of that transaction, after the parent's lock.
        if _slowPath(link != nil), let link, link.parentRunsTransaction(on: currentThread),
            transactionOwner.load(ordering: .relaxed) != currentThread
        {
            return performAsPart(on: currentThread) { changeSubscribers(body) }
        }
        var released = ReleasedSubscribers<State>.none
        var isLeaving = false
        let result = withLockUnlessInTransaction { () -> R in
            let result = body(&released)
            if !leaving.isEmpty || released.isCalled {
                isLeaving = keepCallsInProgress(of: &released)
            }
            if !released.isEmpty, transactionOwner.load(ordering: .relaxed) == currentThread {
                leftovers.released.take(&released)
                leftovers.isLeaving = leftovers.isLeaving || isLeaving
                isLeaving = false
                hasLeftovers = true
            }
            return result
        }
        released.settle()
        if isLeaving { forgetFinishedCalls() }
        return result
    }
}
