#if canImport(Darwin) || SOBREIRO_APPLE_LOCK
    public import Synchronization

    /// The package's one lock, non-recursive, on Apple platforms: a `Synchronization.Mutex`, which is
    /// `os_unfair_lock` there. A thread that waits lends its priority to the holder, so a main thread waiting for a
    /// model's lock never waits behind lower-priority work, and the uncontended path is one atomic
    /// compare-and-exchange to lock and one to unlock, inlined into the caller.
    ///
    /// `Mutex` may hand a contended lock over inside the kernel, where ThreadSanitizer cannot see it, and it then
    /// reports races on everything the lock guards. `handOver` makes every hand-over visible: each holder stores to
    /// it before unlocking and loads from it after locking, a release and an acquire that cost a plain store and a
    /// plain load on ARM64 and x86-64.
    ///
    /// Linux builds compile it with `SOBREIRO_APPLE_LOCK` defined (Scripts/apple-branch.sh does).
    @usableFromInline
    package struct Lock: ~Copyable, Sendable {
        @usableFromInline
        let mutex = Mutex<Void>(())
        @usableFromInline
        let handOver = Atomic<Bool>(false)
        #if DEBUG
            /// The thread holding the lock, or 0, for ``assertHeld(_:)``.
            @usableFromInline
            let owner = Atomic<UInt>(0)
        #endif

        /// Creates an unlocked lock.
        @inlinable
        package init() {}

        /// Runs `body` while holding the lock. The lock is not re-entrant: locking it again from `body` deadlocks.
        @inlinable
        @inline(__always)
        package borrowing func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
            // `Mutex` wants a result it can send to another isolation domain; the lock's callers stay on this
            // thread, so the result goes out through a local instead.
            var result: R?
            try mutex.withLock { _ throws(E) in result = try holding(body) }
            return result.unsafelyUnwrapped
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
            var result: R?
            if try mutex.withLockIfAvailable({ _ throws(E) in result = try holding(body) }) == nil {
                willWait()
                try mutex.withLock { _ throws(E) in
                    didWait()
                    result = try holding(body)
                }
            }
            return result.unsafelyUnwrapped
        }

        /// Runs `body` with the mutex held, between the acquire and the release that ThreadSanitizer sees.
        @inlinable
        @inline(__always)
        borrowing func holding<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
            _ = handOver.load(ordering: .acquiring)
            defer { handOver.store(false, ordering: .releasing) }
            return try asOwner(body)
        }
    }
#endif
