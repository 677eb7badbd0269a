#if canImport(Darwin)
    public import Darwin
#elseif canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

/// A non-recursive mutex that lives in one heap cell for the lifetime of its owner.
///
/// Debug builds use an error-checking mutex, so locking twice on one thread or unlocking a lock the thread
/// does not hold stops at the faulty call instead of hanging or corrupting state.
@usableFromInline
struct Lock {
    @usableFromInline
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if DEBUG
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        let result = pthread_mutex_init(mutex, &attributes)
        precondition(result == 0, "pthread_mutex_init failed with \(result)")
        pthread_mutexattr_destroy(&attributes)
    }

    func deallocate() {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    func lock() {
        let result = pthread_mutex_lock(mutex)
        assert(result == 0, "lock() failed with \(result): this thread already holds the lock")
    }

    @inlinable
    func unlock() {
        let result = pthread_mutex_unlock(mutex)
        assert(result == 0, "unlock() failed with \(result): this thread does not hold the lock")
    }
}

/// Identifies the calling thread; never 0, so 0 can mean "no thread".
@usableFromInline
enum ThreadID {
    @inlinable
    static var current: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}
