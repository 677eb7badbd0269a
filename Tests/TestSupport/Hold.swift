import Dispatch
import Synchronization

/// Holds the first thread that reaches ``holdOnce()`` until the test calls ``release()``, so that a test can stop a
/// delivery in the middle of a render or a transform and act while it is stopped.
///
/// The held thread must be one of the test's own (`onAnotherThread`), never the main queue or the cooperative pool;
/// the test waits for it by suspending, in ``isHeld(isolation:)``. A hold that is never released lets go after
/// ``patience``.
public final class Hold: Sendable {
    private let hasHeld = Atomic<Bool>(false)
    private let isInside = Atomic<Bool>(false)
    private let released = DispatchSemaphore(value: 0)

    /// Creates a hold that no thread has reached yet.
    public init() {}

    /// Blocks the first caller until ``release()``; every later call returns at once.
    public func holdOnce() {
        guard !hasHeld.exchange(true, ordering: .relaxed) else { return }
        isInside.store(true, ordering: .releasing)
        _ = released.wait(timeout: .now() + patience)
        isInside.store(false, ordering: .releasing)
    }

    /// Whether a thread is held now.
    public var isHolding: Bool { isInside.load(ordering: .acquiring) }

    /// Suspends until a thread is held; `false` if none was within ``patience``.
    public func isHeld(isolation: isolated (any Actor)? = #isolation) async -> Bool {
        await eventually(isolation: isolation) { isHolding }
    }

    /// Lets the held thread go on, or the next caller of ``holdOnce()`` pass at once.
    public func release() { released.signal() }
}
