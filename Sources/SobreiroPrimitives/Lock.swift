public import Synchronization

#if canImport(Darwin)
    public import Darwin
#elseif canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

/// The package's one lock, non-recursive: a `Synchronization.Mutex`, on every platform.
///
/// A thread that waits for it lends its priority to the holder: on Apple platforms `Mutex` is `os_unfair_lock`, with
/// priority donation, so a main thread that waits for a model's lock never waits behind lower-priority work; on
/// Linux it is a priority-inheriting futex (`FUTEX_LOCK_PI`), which lends priority under the real-time scheduling
/// policies. The uncontended path is one atomic compare-and-exchange to lock and one to unlock, inlined into the
/// caller; contending threads sleep in the kernel.
///
/// `Mutex` hands a contended lock over inside the kernel or inside the standard library, neither of which
/// ThreadSanitizer instruments, so it would report races on everything the lock guards. `handOver` makes every
/// hand-over visible: each holder stores to it before unlocking and loads from it after locking, a release and an
/// acquire that cost a plain store and a plain load on ARM64 and x86-64.
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
        // `Mutex` wants a result it can send to another isolation domain; the lock's callers stay on this thread, so
        // the result goes out through a local instead.
        var result: R?
        try mutex.withLock { _ throws(E) in result = try holding(body) }
        return result.unsafelyUnwrapped
    }

    /// Runs `body` while holding the lock; if another thread holds it, `willWait` runs before this thread waits for
    /// it, and `didWait` once this thread holds it, before `body`.
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

    /// Runs `body` with the mutex held, between the acquire and the release that ThreadSanitizer sees, with the
    /// calling thread recorded as the holder in debug builds.
    @inlinable
    @inline(__always)
    borrowing func holding<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        _ = handOver.load(ordering: .acquiring)
        defer { handOver.store(false, ordering: .releasing) }
        #if DEBUG
            owner.store(ThreadID.current, ordering: .relaxed)
            defer { owner.store(0, ordering: .relaxed) }
        #endif
        return try body()
    }

    /// Traps in debug builds unless the calling thread holds the lock: for functions documented as "called under the
    /// lock". Release builds check nothing.
    @inlinable
    package borrowing func assertHeld(_ function: StaticString = #function) {
        #if DEBUG
            if owner.load(ordering: .relaxed) != ThreadID.current {
                fatalError(
                    "\(function) must be called with the lock held: take the lock first, or call the locking variant"
                )
            }
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

#if DEBUG
    /// Places in the package's locked code where a debug build lets a test run code, to force an interleaving that
    /// no test could otherwise bring about on purpose. Tests of other suites run meanwhile and pass the same places,
    /// so each is read and set under a lock of its own; release builds have none.
    @usableFromInline
    package enum TestPoints {
        private static let readTarget = Locked<((AnyObject) -> Void)?>(nil)

        /// Called under a model's lock, right after a subscription read its target through its weak reference.
        @usableFromInline
        package static var didReadTargetUnderLock: ((AnyObject) -> Void)? {
            get { readTarget.withLock { $0 } }
            set {
                var replaced = newValue
                readTarget.withLock { swap(&$0, &replaced) }
            }
        }
    }
#endif

// MARK: - The calling thread's identity, which the lock, transactions and calls record

/// Identifies the calling thread; never 0, so 0 can mean "no thread".
///
/// Every "am I inside this transaction, this delivery, this call?" of the package asks it, from code that inlines
/// into async functions. So it is read through `pthread_getspecific`, a call whose result the optimizer must not
/// reuse. `pthread_self()` is declared `const`: once inlined into an async function, an optimized build may read it
/// once and keep the value after an `await` that resumed the task on another thread. That thread's transaction
/// would then look like the caller's own.
@usableFromInline
package enum ThreadID {
    /// The calling thread's number, read anew at every call.
    @usableFromInline
    package static var current: UInt {
        current(key)
    }

    /// The calling thread's number, read anew at every call from the slot `key`, which must be ``key``.
    ///
    /// For the write path: a model keeps the key, which spares each write the accessor of the global.
    @inlinable
    @inline(__always)
    package static func current(_ key: pthread_key_t) -> UInt {
        if let stored = pthread_getspecific(key) { return UInt(bitPattern: stored) }
        return numberCurrentThread()
    }

    /// The slot of every thread that holds its number, once the thread has asked for it.
    package static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        if status != 0 { fatalError("Sobreiro could not create a thread-specific key (error \(status))") }
        return key
    }()

    /// Records the calling thread's number in its slot: the bits of its `pthread_t`, unique among live threads.
    @usableFromInline
    @inline(never)
    static func numberCurrentThread() -> UInt {
        let number = bits(of: pthread_self())
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: number))
        return number
    }

    /// The bits of `thread`: a pointer on Apple platforms and an integer elsewhere, the same size on both.
    private static func bits<Thread>(of thread: Thread) -> UInt {
        unsafeBitCast(thread, to: UInt.self)
    }
}
