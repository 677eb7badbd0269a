#if canImport(Darwin)
    public import Darwin
#elseif canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

/// What the calling thread is doing inside Sobreiro: how many transactions and deliveries it is running.
///
/// Ending a subscription waits for a call of it that another thread is running (see `Subscriber`). That wait is
/// safe only from a thread that holds no model's lock and runs inside no render or handler: the call being
/// waited for may need the lock, or may itself end a subscription whose call runs on the waiting thread. The
/// depth lives in a thread-specific slot, as a number in place of a pointer, so keeping it allocates nothing.
@usableFromInline
enum ThreadContext {
    @usableFromInline
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "cannot create a thread-specific key: pthread error \(result)")
        return key
    }()

    /// The number of transactions and deliveries running on this thread.
    @inlinable
    static var depth: UInt {
        UInt(bitPattern: pthread_getspecific(key))
    }

    /// Whether this thread runs inside a transaction or a delivery of any model, where it must not wait.
    @inlinable
    static var isInsideLibrary: Bool {
        depth != 0
    }

    /// Runs `body` counted as a transaction or a delivery of this thread.
    @inlinable
    @inline(__always)
    static func inside<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let depth = enter()
        defer { leave(restoring: depth) }
        return try body()
    }

    /// Counts one more transaction or delivery on this thread, and returns the depth to restore.
    @inlinable
    @inline(__always)
    static func enter() -> UInt {
        let depth = self.depth
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: depth &+ 1))
        return depth
    }

    /// Restores the depth that `enter()` returned.
    @inlinable
    @inline(__always)
    static func leave(restoring depth: UInt) {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: depth))
    }
}

/// Where threads wait for a call of a subscription, running on another thread, to return.
///
/// Waits are rare (a cancel that races a delivery), so all of them share one mutex and one condition; the end of
/// a call wakes them only when its subscription was marked as waited for.
@usableFromInline
enum CallWaiting {
    // Written once, by its initializer; the pthread calls synchronize everything after.
    nonisolated(unsafe) private static let parking: UnsafeMutablePointer<Parking> = {
        let parking = UnsafeMutablePointer<Parking>.allocate(capacity: 1)
        parking.initialize(to: Parking())
        let mutexResult = pthread_mutex_init(&parking.pointee.mutex, nil)
        let conditionResult = pthread_cond_init(&parking.pointee.condition, nil)
        precondition(mutexResult == 0 && conditionResult == 0, "cannot create a condition: pthread error")
        return parking
    }()

    private struct Parking {
        var mutex = pthread_mutex_t()
        var condition = pthread_cond_t()
    }

    /// Blocks until `isOver` returns `true`; it is checked under the shared mutex, and again at every wake-up.
    @usableFromInline
    static func wait(until isOver: () -> Bool) {
        pthread_mutex_lock(&parking.pointee.mutex)
        while !isOver() {
            pthread_cond_wait(&parking.pointee.condition, &parking.pointee.mutex)
        }
        pthread_mutex_unlock(&parking.pointee.mutex)
    }

    /// Wakes every waiting thread, so that each checks its condition again.
    @usableFromInline
    static func wakeAll() {
        pthread_mutex_lock(&parking.pointee.mutex)
        pthread_cond_broadcast(&parking.pointee.condition)
        pthread_mutex_unlock(&parking.pointee.mutex)
    }
}
