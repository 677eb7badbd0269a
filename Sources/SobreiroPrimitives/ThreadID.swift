#if canImport(Darwin)
    public import Darwin
#elseif canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

/// Identifies the calling thread; never 0, so 0 can mean "no thread".
@usableFromInline
package enum ThreadID {
    /// The calling thread's `pthread_t`, as a number: a pointer on Apple platforms and an integer elsewhere, the same
    /// size on every platform the package supports.
    @inlinable
    package static var current: UInt {
        number(pthread_self())
    }

    /// The bits of `thread`, whichever of the two types it has here.
    @inlinable
    static func number<Thread>(_ thread: Thread) -> UInt {
        unsafeBitCast(thread, to: UInt.self)
    }
}
