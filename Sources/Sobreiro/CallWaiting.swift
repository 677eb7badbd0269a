import Dispatch
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
///
/// The record lives under a ``Lock``, held only to read and change it. A cancel that must wait sleeps on a
/// semaphore of its own, made the first time it finds the call still running, and registered under the lock in the
/// same critical section that saw the call running; whoever wakes it takes it out of the record under the lock and
/// signals it after unlocking. A semaphore counts, so a signal that comes before the cancel sleeps is not lost.
@usableFromInline
package enum CallWaiting {
    fileprivate struct Shared {
        /// What each waiting thread waits for.
        var waits: [UInt: Wait] = [:]
        /// Cancelling threads released from their wait to break a cycle.
        var released: Set<UInt> = []
        /// The cancels asleep now, each on its own semaphore, until someone takes them out to wake them.
        var sleepers: [UInt: DispatchSemaphore] = [:]
    }

    fileprivate enum Wait {
        /// A cancel waits for the call that this thread runs.
        case call(on: UInt)
        /// A thread waits for this lock, held by whichever thread runs a transaction under it.
        case lock(TransactionLockReference)
    }

    /// Kept only while its waiter is blocked on the lock, which the waiter's own frame keeps alive.
    fileprivate struct TransactionLockReference {
        unowned(unsafe) let lock: any TransactionLock
    }

    private static let shared = Locked(Shared())

    /// Blocks until `isOver` returns `true`, the caller being a cancel that waits for a call running on `thread`.
    /// Returns at once instead if `thread` waits, directly or through others, for the calling thread; returns
    /// early if a thread blocking on a lock finds that this wait closes a cycle. `isOver` runs under the lock, so
    /// it must run no user code.
    ///
    /// - Returns: Whether the call is over; `false` when the wait was skipped or cut short to break a cycle.
    @usableFromInline
    @discardableResult
    static func waitForCall(on thread: UInt, until isOver: () -> Bool) -> Bool {
        let me = ThreadID.current
        var outcome = shared.withLock { shared -> Bool? in
            guard shared.cycle(from: thread, to: me) == nil else { return false }
            shared.waits[me] = .call(on: thread)
            return shared.endWait(of: me, isCallOver: isOver(), orSleepOn: nil)
        }
        // Made only once the call is found running: most cancels find it over at the first look.
        var wakeUp: DispatchSemaphore?
        while true {
            if let outcome { return outcome }
            if let wakeUp { wakeUp.wait() } else { wakeUp = DispatchSemaphore(value: 0) }
            outcome = shared.withLock { $0.endWait(of: me, isCallOver: isOver(), orSleepOn: wakeUp) }
        }
    }

    /// Wakes every sleeping cancel, so that each checks its call again.
    @usableFromInline
    package static func wakeAll() {
        let sleepers = shared.withLock { shared in
            var sleepers: [UInt: DispatchSemaphore] = [:]
            swap(&sleepers, &shared.sleepers)
            return sleepers
        }
        for sleeper in sleepers.values { sleeper.signal() }
    }

    /// Records that this thread is about to block on the lock `lock`, as a wait for the thread in its transaction;
    /// `didWaitForLock` must follow once it holds the lock. If that thread waits for this one, the cancels on the way
    /// stop waiting, so that the lock is released.
    @usableFromInline
    static func willWaitForLock(_ lock: any TransactionLock) {
        let me = ThreadID.current
        let released = shared.withLock { shared in
            shared.waits[me] = .lock(TransactionLockReference(lock: lock))
            return shared.releaseCancels(inCycleFrom: lock.transactionThread, to: me)
        }
        for sleeper in released { sleeper.signal() }
    }

    /// Records that this thread, which waited for a lock, now holds it.
    @usableFromInline
    static func didWaitForLock() {
        let me = ThreadID.current
        shared.withLock { $0.waits[me] = nil }
    }
}

extension CallWaiting.Shared {
    /// Ends the wait of the cancel on `thread` if its call is over or the cancel was released, and otherwise puts it
    /// to sleep on `wakeUp`, if it has one yet.
    ///
    /// - Returns: Whether the call is over, once the wait ends; `nil` while it goes on.
    mutating func endWait(of thread: UInt, isCallOver: Bool, orSleepOn wakeUp: DispatchSemaphore?) -> Bool? {
        let wasReleased = released.remove(thread) != nil
        guard isCallOver || wasReleased else {
            sleepers[thread] = wakeUp
            return nil
        }
        waits[thread] = nil
        return isCallOver
    }

    /// Releases every cancel on the chain of waits from `start`, if it leads to `target`, and takes out of the record
    /// those of them that sleep.
    ///
    /// - Returns: The semaphores of the released cancels that sleep, to signal after unlocking.
    mutating func releaseCancels(inCycleFrom start: UInt, to target: UInt) -> [DispatchSemaphore] {
        guard let path = cycle(from: start, to: target) else { return [] }
        var woken: [DispatchSemaphore] = []
        for thread in path {
            guard case .call = waits[thread] else { continue }
            released.insert(thread)
            if let sleeper = sleepers.removeValue(forKey: thread) { woken.append(sleeper) }
        }
        return woken
    }

    /// The waiting threads from `start` to `target`, following what each waits for, or `nil` if the chain of
    /// waits from `start` does not reach `target`.
    func cycle(from start: UInt, to target: UInt) -> [UInt]? {
        var path: [UInt] = []
        var thread = start
        // A chain longer than the number of waits goes round a cycle that does not include `target`.
        for _ in 0...waits.count {
            if thread == target { return path }
            guard thread != 0, let wait = waits[thread] else { return nil }
            path.append(thread)
            switch wait {
            case .call(let next): thread = next
            case .lock(let reference): thread = reference.lock.transactionThread
            }
        }
        return nil
    }
}
