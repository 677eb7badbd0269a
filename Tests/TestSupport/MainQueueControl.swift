import Dispatch

// Tests that need a particular order of main-queue jobs drive it with these two: work done elsewhere while the main
// queue is held queues its blocks behind the test's current job, the test then acts on the main actor, and only
// then lets the queued blocks run.

/// Runs `body` on a thread of its own and waits for it here, on the main actor, so that nothing `body` queues on
/// the main queue runs before the caller's next step.
///
/// A thread of its own rather than a dispatch worker: other tests can keep the workers busy for seconds, and the
/// main queue, held meanwhile, would hold up every test that waits for it.
///
/// The main thread blocks meanwhile, by design; `body` must need neither the main queue nor a thread of the pool.
///
/// - Returns: `false` if `body` did not finish within `seconds`, a safety net against a deadlock.
@MainActor
public func runElsewhereHoldingMainQueue(seconds: Double = patience, _ body: @escaping @Sendable () -> Void) -> Bool {
    onAnotherThread(body).wait(timeout: .now() + seconds) == .success
}

/// Returns once every block queued on the main queue before this call has run.
@MainActor
public func drainMainQueue() async {
    await withCheckedContinuation { continuation in
        DispatchQueue.main.async { continuation.resume() }
    }
}
