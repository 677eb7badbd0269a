import Foundation

/// A value behind a lock that ThreadSanitizer sees: a pthread mutex, through `NSLock`.
///
/// `Synchronization.Mutex` would do, but on Linux the sanitizer does not see its lock and reports the accesses
/// it guards as races.
final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
