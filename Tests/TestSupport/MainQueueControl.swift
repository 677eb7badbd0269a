import Dispatch

// Tests that need a particular order of main-queue jobs drive it with these two: work done elsewhere while the main
// queue is held queues its blocks behind the test's current job, the test then acts on the main actor, and only
// then lets the queued blocks run.

/// Runs `body` on another thread and waits for it here, on the main actor, so that nothing `body` queues on the
/// main queue runs before the caller's next step.
///
/// - Returns: `false` if `body` did not finish within `seconds`.
@MainActor
public func runElsewhereHoldingMainQueue(seconds: Double = 20, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        body()
        done.signal()
    }
    return done.wait(timeout: .now() + seconds) == .success
}

/// Returns once every block queued on the main queue before this call has run.
@MainActor
public func drainMainQueue() async {
    await withCheckedContinuation { continuation in
        DispatchQueue.main.async { continuation.resume() }
    }
}
