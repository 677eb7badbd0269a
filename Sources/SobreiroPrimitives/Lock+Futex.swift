#if !canImport(Darwin) && !SOBREIRO_APPLE_LOCK
    public import Synchronization
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// The package's one lock, non-recursive, on Linux: its uncontended path is one atomic compare-and-exchange to
    /// lock and one exchange to unlock, inlined into the caller.
    ///
    /// Contending threads sleep on a pthread condition variable. The design is that of a futex-based mutex, with
    /// the condition variable standing in for the futex: `state` is 0 when unlocked, 1 when locked, and 2 when
    /// locked with a thread possibly asleep; a thread that finds the lock taken marks it 2 and sleeps, and an
    /// unlock that finds 2 wakes one sleeper. Waiting and waking both happen under `parking.mutex`, so a wake-up
    /// cannot fall between a sleeper's check and its wait.
    ///
    /// Not `Synchronization.Mutex`, as on Apple platforms: here `Mutex` is a priority-inheriting futex whose
    /// uncontended round trip runs more instructions than this one, on the path of every write; and it takes its
    /// contended path inside an uninstrumented library, where ThreadSanitizer cannot see the hand-over. Every
    /// acquisition of this lock happens through atomics compiled into this module, so ThreadSanitizer sees it.
    /// Linux lends priority only through `PTHREAD_PRIO_INHERIT` mutexes, which matter to real-time scheduling
    /// policies.
    @usableFromInline
    package struct Lock: ~Copyable, @unchecked Sendable {
        @usableFromInline
        let state = Atomic<UInt32>(0)

        @usableFromInline
        let parking: UnsafeMutablePointer<Parking>

        #if DEBUG
            /// The thread holding the lock, or 0, for ``assertHeld(_:)``.
            @usableFromInline
            let owner = Atomic<UInt>(0)
        #endif

        /// Where contending threads sleep.
        @usableFromInline
        struct Parking {
            var mutex = pthread_mutex_t()
            var condition = pthread_cond_t()
        }

        /// Creates an unlocked lock.
        package init() {
            parking = .allocate(capacity: 1)
            parking.initialize(to: Parking())
            let mutexResult = pthread_mutex_init(mutex, nil)
            let conditionResult = pthread_cond_init(condition, nil)
            precondition(mutexResult == 0 && conditionResult == 0, "cannot create a lock: pthread error")
        }

        deinit {
            pthread_cond_destroy(condition)
            pthread_mutex_destroy(mutex)
            parking.deinitialize(count: 1)
            parking.deallocate()
        }

        private var mutex: UnsafeMutablePointer<pthread_mutex_t> {
            UnsafeMutableRawPointer(parking).advanced(by: MemoryLayout<Parking>.offset(of: \.mutex)!)
                .assumingMemoryBound(to: pthread_mutex_t.self)
        }

        private var condition: UnsafeMutablePointer<pthread_cond_t> {
            UnsafeMutableRawPointer(parking).advanced(by: MemoryLayout<Parking>.offset(of: \.condition)!)
                .assumingMemoryBound(to: pthread_cond_t.self)
        }

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
            pthread_mutex_lock(mutex)
            // Whoever unlocks next sees 2 and wakes a sleeper; if the lock was free, this thread now holds it.
            while state.exchange(2, ordering: .acquiring) != 0 {
                pthread_cond_wait(condition, mutex)
            }
            pthread_mutex_unlock(mutex)
        }

        @usableFromInline
        borrowing func wakeOneWaiter() {
            pthread_mutex_lock(mutex)
            pthread_cond_signal(condition)
            pthread_mutex_unlock(mutex)
        }
    }
#endif
