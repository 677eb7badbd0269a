public import Synchronization

#if canImport(Darwin)
    public import Darwin

    /// A non-recursive lock: `os_unfair_lock`, which lends the priority of a waiting thread to the thread
    /// that holds it, so a main thread waiting for a model's lock never waits behind lower-priority work.
    @usableFromInline
    package struct Lock: ~Copyable, @unchecked Sendable {
        @usableFromInline
        let primitive: UnsafeMutablePointer<os_unfair_lock>

        #if DEBUG
            /// The thread holding the lock, or 0, for ``assertHeld(_:)``.
            @usableFromInline
            let owner = Atomic<UInt>(0)
        #endif

        /// Creates an unlocked lock.
        package init() {
            primitive = .allocate(capacity: 1)
            primitive.initialize(to: os_unfair_lock())
        }

        deinit {
            primitive.deinitialize(count: 1)
            primitive.deallocate()
        }

        /// Runs `body` while holding the lock. The lock is not re-entrant: locking it again from `body`
        /// deadlocks.
        @inlinable
        @inline(__always)
        package borrowing func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
            try withLock(reportingWait: { wait in wait() }, body)
        }

        /// Runs `body` while holding the lock; if another thread holds it, the wait for it runs inside `report`,
        /// which calls the closure it is given exactly once.
        @inlinable
        @inline(__always)
        package borrowing func withLock<R, E: Error>(
            reportingWait report: (_ wait: () -> Void) -> Void,
            _ body: () throws(E) -> R
        ) throws(E) -> R {
            if !os_unfair_lock_trylock(primitive) { report { os_unfair_lock_lock(primitive) } }
            defer { os_unfair_lock_unlock(primitive) }
            return try asOwner(body)
        }
    }
#else
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// A non-recursive lock whose uncontended path is one atomic compare-and-exchange to lock and one exchange to
    /// unlock, inlined into the caller.
    ///
    /// Contending threads sleep on a pthread condition variable. The design is that of a futex-based mutex, with
    /// the condition variable standing in for the futex: `state` is 0 when unlocked, 1 when locked, and 2 when
    /// locked with a thread possibly asleep; a thread that finds the lock taken marks it 2 and sleeps, and an
    /// unlock that finds 2 wakes one sleeper. Waiting and waking both happen under `parking.mutex`, so a wake-up
    /// cannot fall between a sleeper's check and its wait.
    ///
    /// Unlike `Synchronization.Mutex`, every acquisition happens through atomics compiled into this module, so
    /// ThreadSanitizer sees it. (`Mutex` takes its contended path inside an uninstrumented library, and
    /// ThreadSanitizer then reports races on everything it guards.) Linux lends priority only through
    /// `PTHREAD_PRIO_INHERIT` mutexes, which matter to real-time scheduling policies; a futex-style lock keeps
    /// the uncontended path inlined and visible to ThreadSanitizer.
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
            try withLock(reportingWait: { wait in wait() }, body)
        }

        /// Runs `body` while holding the lock; if another thread holds it, the wait for it runs inside `report`,
        /// which calls the closure it is given exactly once.
        @inlinable
        @inline(__always)
        package borrowing func withLock<R, E: Error>(
            reportingWait report: (_ wait: () -> Void) -> Void,
            _ body: () throws(E) -> R
        ) throws(E) -> R {
            let (acquired, _) = state.compareExchange(
                expected: 0,
                desired: 1,
                successOrdering: .acquiring,
                failureOrdering: .relaxed
            )
            if !acquired { report { waitForLock() } }
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

extension Lock {
    /// Runs `body`, which the calling thread runs with the lock held, recorded as the holder in debug builds.
    @inlinable
    @inline(__always)
    borrowing func asOwner<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        #if DEBUG
            owner.store(ThreadID.current, ordering: .relaxed)
            defer { owner.store(0, ordering: .relaxed) }
        #endif
        return try body()
    }

    /// Traps in debug builds unless the calling thread holds the lock: for functions documented as "called under
    /// the lock". Release builds check nothing.
    @inlinable
    package borrowing func assertHeld(_ function: StaticString = #function) {
        #if DEBUG
            precondition(
                owner.load(ordering: .relaxed) == ThreadID.current,
                "\(function) must be called with the lock held: take the lock first, or call the locking variant"
            )
        #endif
    }
}

/// A value guarded by a ``Lock``. Inlinable, so that inlinable code using it is specialized for its value.
@usableFromInline
package final class Locked<Value>: @unchecked Sendable {
    @usableFromInline
    let lock = Lock()
    @usableFromInline
    var value: Value

    /// Creates a guarded `value`.
    @inlinable
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.withLock { () throws -> R in try body(&value) }
    }
}
