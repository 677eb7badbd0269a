public import Dispatch
import Foundation
public import Testing

// Tests that need threads to meet in a particular order block real threads, never the cooperative pool that every
// test's tasks share: these run work on a thread of its own and wait with a time limit, so a deadlock fails the
// test instead of hanging the run.

/// Runs `body` on a thread of its own and returns a semaphore signalled when it has returned.
public func onAnotherThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done
}

/// Expects `done` to be signalled within 20 seconds: the work it stands for finished.
public func expectSignalled(_ done: DispatchSemaphore, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        done.wait(timeout: .now() + 20) == .success, "deadlock: the work never finished", sourceLocation: sourceLocation
    )
}

/// Waits until `condition` holds, for at most 20 seconds; fails instead of hanging.
public func expectEventually(sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) {
    let deadline = DispatchTime.now() + 20
    while !condition() {
        guard DispatchTime.now() < deadline else {
            Issue.record("the condition never held", sourceLocation: sourceLocation)
            return
        }
        usleep(1000)
    }
}
