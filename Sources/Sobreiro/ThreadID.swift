#if canImport(Darwin)
    public import Darwin
#elseif canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

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
