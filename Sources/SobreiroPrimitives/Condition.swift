#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A mutex with a condition variable: where a thread sleeps until another thread changes what it waits for.
///
/// The library's one condition variable: a subscription that ends waits on one for its call running on another
/// thread to return, and on Linux ``Lock`` parks its contending threads on one (on Apple platforms the lock is a
/// `Mutex`, which sleeps in the kernel). Not for guarding state on a hot path: locking its mutex is a library call,
/// where ``Lock`` is one inlined atomic operation.
///
/// The usual pattern, with `isDone` changed only while the mutex is held:
///
///     condition.withLock {
///         while !isDone { condition.wait() }
///     }
@usableFromInline
package struct Condition: ~Copyable, @unchecked Sendable {
    private struct Storage {
        var mutex = pthread_mutex_t()
        var condition = pthread_cond_t()
    }

    // A pthread mutex or condition variable must not move once initialized, so they live on the heap.
    private let storage: UnsafeMutablePointer<Storage>

    /// Creates a condition whose mutex is unlocked.
    package init() {
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage())
        let mutexResult = pthread_mutex_init(mutex, nil)
        let conditionResult = pthread_cond_init(condition, nil)
        if mutexResult != 0 || conditionResult != 0 { fatalError("Sobreiro could not create a pthread condition") }
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    private var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        UnsafeMutableRawPointer(storage).advanced(by: MemoryLayout<Storage>.offset(of: \.mutex)!)
            .assumingMemoryBound(to: pthread_mutex_t.self)
    }

    private var condition: UnsafeMutablePointer<pthread_cond_t> {
        UnsafeMutableRawPointer(storage).advanced(by: MemoryLayout<Storage>.offset(of: \.condition)!)
            .assumingMemoryBound(to: pthread_cond_t.self)
    }

    /// Runs `body` holding the mutex. Not re-entrant: `body` must not call `withLock` on the same condition.
    package borrowing func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Releases the mutex, sleeps until `signal()` or `broadcast()` wakes this thread, and takes the mutex again
    /// before it returns. Called only from `withLock`'s body; it may also return without a wake-up, so the caller
    /// checks what it waits for again, in a loop.
    package borrowing func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Wakes one thread sleeping in `wait()`, if any.
    package borrowing func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every thread sleeping in `wait()`.
    package borrowing func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
