#if canImport(Darwin)
    public import Darwin
#elseif canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

/// A non-recursive mutex in a heap cell of its own, so that it never moves.
///
/// It is a pthread mutex rather than `Synchronization.Mutex` because ThreadSanitizer understands pthread
/// mutexes: `Mutex` takes its contended path inside an uninstrumented library, so ThreadSanitizer misses that
/// acquisition and reports races on the data it guards. Debug builds use an error-checking mutex, so that
/// locking twice on one thread stops at the faulty call instead of hanging.
@usableFromInline
package struct Lock: @unchecked Sendable {
    @usableFromInline
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked lock. Call ``deallocate()`` when its owner is deinitialized.
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if DEBUG
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        let result = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(result == 0, "pthread_mutex_init failed with error \(result)")
    }

    /// Releases the mutex. The lock must not be used afterwards.
    package func deallocate() {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` while holding the lock.
    @inlinable
    @inline(__always)
    package func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let locked = pthread_mutex_lock(mutex)
        assert(locked == 0, "pthread_mutex_lock failed with error \(locked): the lock is not re-entrant")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            assert(unlocked == 0, "pthread_mutex_unlock failed with error \(unlocked)")
        }
        return try body()
    }
}

/// A value guarded by a ``Lock``.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    /// Creates a guarded `value`.
    package init(_ value: Value) {
        self.value = value
    }

    deinit {
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.withLock { () throws -> R in try body(&value) }
    }
}
