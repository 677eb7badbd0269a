#if !canImport(Darwin) && !SOBREIRO_APPLE_LOCK
    public import Synchronization

    /// The package's one lock, non-recursive, on Linux: its uncontended path is one atomic compare-and-exchange to
    /// lock and one exchange to unlock, inlined into the caller.
    ///
    /// Contending threads sleep on a ``Condition``. The design is that of a futex-based mutex, with the condition
    /// standing in for the futex: `state` is 0 when unlocked, 1 when locked, and 2 when locked with a thread
    /// possibly asleep; a thread that finds the lock taken marks it 2 and sleeps, and an unlock that finds 2 wakes
    /// one sleeper. Waiting and waking both happen under the condition's mutex, so a wake-up cannot fall between a
    /// sleeper's check and its wait.
    ///
    /// Not `Synchronization.Mutex`, as on Apple platforms: here `Mutex` is a priority-inheriting futex whose
    /// uncontended round trip runs more instructions than this one, on the path of every write; and it takes its
    /// contended path inside an uninstrumented library, where ThreadSanitizer cannot see the hand-over. Every
    /// acquisition of this lock happens through atomics compiled into this module, so ThreadSanitizer sees it.
    /// Linux lends priority only through `PTHREAD_PRIO_INHERIT` mutexes, which matter to real-time scheduling
    /// policies.
    @usableFromInline
    package struct Lock: ~Copyable, Sendable {
        @usableFromInline
        let state = Atomic<UInt32>(0)

        /// Where contending threads sleep.
        @usableFromInline
        let parking = Condition()

        #if DEBUG
            /// The thread holding the lock, or 0, for ``assertHeld(_:)``.
            @usableFromInline
            let owner = Atomic<UInt>(0)
        #endif

        /// Creates an unlocked lock.
        package init() {}

        /// Runs `body` while holding the lock. The lock is not re-entrant: locking it again from `body` deadlocks.
        @inlinable
        @inline(__always)
        package borrowing func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
            try withLock(willWait: {}, didWait: {}, body)
        }

        /// Runs `body` while holding the lock; if another thread holds it, `willWait` runs before this thread waits
        /// for it, and `didWait` once this thread holds it, before `body`.
        @inlinable
        @inline(__always)
        package borrowing func withLock<R, E: Error>(
            willWait: () -> Void,
            didWait: () -> Void,
            _ body: () throws(E) -> R
        ) throws(E) -> R {
            let (acquired, _) = state.compareExchange(
                expected: 0,
                desired: 1,
                successOrdering: .acquiring,
                failureOrdering: .relaxed
            )
            if !acquired {
                willWait()
                waitForLock()
                didWait()
            }
            defer {
                if state.exchange(0, ordering: .releasing) == 2 { wakeOneWaiter() }
            }
            return try asOwner(body)
        }

        @usableFromInline
        borrowing func waitForLock() {
            parking.withLock {
                // Whoever unlocks next sees 2 and wakes a sleeper; if the lock was free, this thread now holds it.
                while state.exchange(2, ordering: .acquiring) != 0 { parking.wait() }
            }
        }

        @usableFromInline
        borrowing func wakeOneWaiter() {
            parking.withLock { parking.signal() }
        }
    }
#endif
