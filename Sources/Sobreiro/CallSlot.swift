public import SobreiroPrimitives
public import Synchronization

/// The thread that may call one subscription's code now, so that ending the subscription can wait for a call
/// that another thread already runs.
///
/// A thread claims the slot for each call, checks after claiming that the subscription has not ended, and gives
/// the slot up when the call returns. Ending a subscription sets its ended flag first, then calls
/// ``waitForCallToEnd()``. Both sides use sequentially consistent operations, so either the call sees the flag
/// and skips the code, or the cancel sees the claimed slot and waits for it. The waits go through `CallWaiting`,
/// which keeps them from closing a cycle with other cancels and with the locks of models.
@frozen
@usableFromInline
package struct CallSlot: ~Copyable, @unchecked Sendable {
    /// The thread that may call the code now, or 0. Bit 0 is set while another thread waits for that call to end
    /// (thread IDs are addresses, so the bit is free).
    @usableFromInline
    let caller = Atomic<UInt>(0)

    /// Creates a free slot.
    @inlinable
    package init() {}

    // Written out: with the synthesized one, Swift 6.3.1 crashes optimizing `Subscriber`'s deinit across modules.
    deinit {}

    /// Claims the slot for a call on `thread`; fails if another thread holds it.
    @inlinable
    @inline(__always)
    package func beginCall(on thread: UInt) -> Bool {
        caller.compareExchange(
            expected: 0,
            desired: thread,
            successOrdering: .sequentiallyConsistent,
            failureOrdering: .relaxed
        ).exchanged
    }

    /// Claims the slot for a call on the calling thread; fails if another thread holds it.
    @inlinable
    package func beginCall() -> Bool {
        beginCall(on: ThreadID.current)
    }

    /// Hands the slot to `thread` while nobody else can claim it (the subscription is not yet shared).
    @inlinable
    package func hold(for thread: UInt) {
        caller.store(thread, ordering: .sequentiallyConsistent)
    }

    /// Moves the slot, which a thread holds, to `thread`, keeping the mark that a thread waits for the call.
    @inlinable
    func rehold(for thread: UInt) {
        var held = caller.load(ordering: .sequentiallyConsistent)
        while true {
            let (exchanged, original) = caller.compareExchange(
                expected: held, desired: thread | held & 1, ordering: .sequentiallyConsistent)
            if exchanged { return }
            held = original
        }
    }

    /// Gives the slot up without waking anyone.
    ///
    /// - Returns: Whether a thread waits for the call to end: then call `CallWaiting.wakeAll()`, after
    ///   unlocking if a lock is held.
    @inlinable
    @inline(__always)
    package func giveUp() -> Bool {
        caller.exchange(0, ordering: .sequentiallyConsistent) & 1 != 0
    }

    /// Gives the slot up, and wakes a thread that waits for the call to end.
    @inlinable
    @inline(__always)
    package func endCall() {
        if giveUp() { CallWaiting.wakeAll() }
    }

    /// The thread that holds the slot now, or 0.
    @inlinable
    var holder: UInt {
        caller.load(ordering: .sequentiallyConsistent) & ~1
    }

    /// Marks the call running now as waited for, so that the thread running it learns, as it gives the slot up,
    /// that others wait for its end: `giveUp()` returns `true`.
    ///
    /// - Returns: `false` if no call runs now.
    @inlinable
    func markWaitedFor() -> Bool {
        var running = caller.load(ordering: .sequentiallyConsistent)
        while running != 0 {
            if running & 1 != 0 { return true }
            let (exchanged, original) = caller.compareExchange(
                expected: running, desired: running | 1, ordering: .sequentiallyConsistent)
            if exchanged { return true }
            running = original
        }
        return false
    }

    /// Whether a thread waits for the running call to end.
    @inlinable
    package var isWaitedFor: Bool {
        caller.load(ordering: .relaxed) & 1 != 0
    }

    /// Waits until a call that another thread is running returns. Call it after setting the subscription's ended
    /// flag: no new call starts then, so the subscription's code has run for the last time when this returns.
    ///
    /// It does not wait for the calling thread's own call (a handler ending its own subscription), nor when the
    /// running call waits for the calling thread, directly or through other threads: for a model's lock that a
    /// transaction of the calling thread holds, or in a cancel of its own (see `CallWaiting`).
    @inlinable
    package func waitForCallToEnd() {
        let running = caller.load(ordering: .sequentiallyConsistent)
        guard running != 0, running & ~1 != ThreadID.current else { return }
        waitForCallOfOtherThread(running & ~1)
    }

    /// Waits until the call running now, if any, returns, so that the calling thread may claim the slot.
    ///
    /// - Returns: `false` when it cannot wait: the call runs on the calling thread, further up its stack, or it
    ///   waits for the calling thread (see `CallWaiting`).
    @inlinable
    func waitForRunningCall() -> Bool {
        let running = caller.load(ordering: .sequentiallyConsistent)
        guard running != 0 else { return true }
        guard running & ~1 != ThreadID.current else { return false }
        return waitForCallOfOtherThread(running & ~1)
    }

    @usableFromInline
    @discardableResult
    func waitForCallOfOtherThread(_ thread: UInt) -> Bool {
        CallWaiting.waitForCall(on: thread) {
            // Mark the call as waited for, so that its end wakes the waiters; done once the thread gave it up.
            let (exchanged, now) = caller.compareExchange(
                expected: thread,
                desired: thread | 1,
                ordering: .sequentiallyConsistent
            )
            return !exchanged && now != thread | 1
        }
    }
}
