#if canImport(Darwin)
    public import Darwin
#elseif canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

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
