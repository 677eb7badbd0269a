import SobreiroPrimitives

/// A lock whose holder can be named while it runs a transaction: what a thread that waits for the lock waits for.
@usableFromInline
protocol TransactionLock: AnyObject, Sendable {
    /// The thread running a transaction under the lock, or 0.
    var transactionThread: UInt { get }
}

/// Where threads wait for a call of a subscription, running on another thread, to return, and the record of who
/// waits for whom that keeps those waits from deadlocking.
///
/// Ending a subscription waits for its running call (see `CallSlot.waitForCallToEnd()`). That call may itself
/// wait: for the lock of a model whose transaction the cancelling thread runs, or in a cancel of its own for a call
/// running on the cancelling thread. Every such wait is recorded here: a cancel waits for a thread, and a thread
/// blocked on a model's lock waits for the thread running a transaction of that model, if any. A wait that would
/// close a cycle does not happen: a cancel that would wait for a thread that waits for it returns at once, and a
/// thread that blocks on a lock whose holder waits for it (directly or through others) releases every cancel in
/// that cycle. Recording costs nothing on the fast paths: only a cancel that meets a running call, and a thread
/// that finds a model's lock taken, come here.
@usableFromInline
package enum CallWaiting {
    private struct Shared {
        /// What each waiting thread waits for.
        var waits: [UInt: Wait] = [:]
        /// Cancelling threads released from their wait to break a cycle.
        var released: Set<UInt> = []
    }

    private enum Wait {
        /// A cancel waits for the call that this thread runs.
        case call(on: UInt)
        /// A thread waits for this lock, held by whichever thread runs a transaction under it.
        case lock(TransactionLockReference)
    }

    /// Kept only while its waiter is blocked on the lock, which the waiter's own frame keeps alive.
    private struct TransactionLockReference {
        unowned(unsafe) let lock: any TransactionLock
    }

    private static let condition = Condition()

    // Read and written only under `condition`'s mutex, and never while another access to it is open: the runtime
    // checks of exclusive access that a global variable gets would only add library calls to every wait.
    @exclusivity(unchecked) nonisolated(unsafe) private static var shared = Shared()

    /// Blocks until `isOver` returns `true`, the caller being a cancel that waits for a call running on `thread`.
    /// Returns at once instead if `thread` waits, directly or through others, for the calling thread; returns
    /// early if a thread blocking on a lock finds that this wait closes a cycle. `isOver` runs under the mutex.
    ///
    /// - Returns: Whether the call is over; `false` when the wait was skipped or cut short to break a cycle.
    @usableFromInline
    @discardableResult
    static func waitForCall(on thread: UInt, until isOver: () -> Bool) -> Bool {
        let me = ThreadID.current
        return condition.withLock {
            guard cycle(from: thread, to: me) == nil else { return false }
            shared.waits[me] = .call(on: thread)
            var isCallOver = isOver()
            while !isCallOver && !shared.released.contains(me) {
                condition.wait()
                isCallOver = isOver()
            }
            shared.waits[me] = nil
            shared.released.remove(me)
            return isCallOver
        }
    }

    /// Wakes every waiting cancel, so that each checks its condition again.
    @usableFromInline
    package static func wakeAll() {
        condition.withLock { condition.broadcast() }
    }

    /// Records that this thread is about to block on the lock `lock`, as a wait for the thread in its transaction;
    /// `didWaitForLock` must follow once it holds the lock. If that thread waits for this one, the cancels on the way
    /// stop waiting, so that the lock is released.
    @usableFromInline
    static func willWaitForLock(_ lock: any TransactionLock) {
        let me = ThreadID.current
        condition.withLock {
            shared.waits[me] = .lock(TransactionLockReference(lock: lock))
            guard let path = cycle(from: lock.transactionThread, to: me) else { return }
            for thread in path {
                if case .call = shared.waits[thread] { shared.released.insert(thread) }
            }
            condition.broadcast()
        }
    }

    /// Records that this thread, which waited for a lock, now holds it.
    @usableFromInline
    static func didWaitForLock() {
        let me = ThreadID.current
        condition.withLock { shared.waits[me] = nil }
    }

    /// The waiting threads from `start` to `target`, following what each waits for, or `nil` if the chain of
    /// waits from `start` does not reach `target`. Called under the mutex.
    private static func cycle(from start: UInt, to target: UInt) -> [UInt]? {
        var path: [UInt] = []
        var thread = start
        // A chain longer than the number of waits goes round a cycle that does not include `target`.
        for _ in 0...shared.waits.count {
            if thread == target { return path }
            guard thread != 0, let wait = shared.waits[thread] else { return nil }
            path.append(thread)
            switch wait {
            case .call(let next): thread = next
            case .lock(let reference): thread = reference.lock.transactionThread
            }
        }
        return nil
    }
}
