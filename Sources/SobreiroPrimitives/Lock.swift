#if DEBUG
    // Only the holder record, kept in debug builds, calls `Atomic` from inlinable code.
    public import Synchronization
#endif

// The lock itself is in Lock+Futex.swift (Linux) and Lock+Mutex.swift (Apple platforms); what both share is here.

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
