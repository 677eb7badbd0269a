public import Dispatch
import Foundation
import Synchronization
public import Testing

// Tests that need threads to meet in a particular order block real threads of their own, never the cooperative
// pool that every test's tasks share, nor the main thread: the pool has as many threads as cores, and a test that
// blocks one starves the tests beside it, or deadlocks when what it waits for needs that thread. These run work on
// a thread of its own, and let a test wait for it by suspending.

/// How many seconds a test waits for something that must happen before it calls it stuck.
///
/// A safety net against a hang, not a budget: a busy machine may run a test many times slower than a quiet one, so
/// only a deadlock, or a waiter nobody resumes, should ever reach it.
public let patience: Double = 60 * sanitizerSlowdown

/// ``patience`` as a duration, for the waits of `SobreiroTesting`.
public let patientWait: Duration = .seconds(patience)

/// Runs `body` on a thread of its own and returns a semaphore signalled when it has returned.
///
/// `body`, and all it captured, is let go of before the signal: a `Thread` keeps its closure until it is itself
/// deallocated, which may come after a test has checked that an object died.
public func onAnotherThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    let work = Work(body)
    Thread {
        work.run()
        done.signal()
    }.start()
    return done
}

/// A closure that the thread running it lets go of once it has returned.
private final class Work: @unchecked Sendable {
    // Set at creation, then read and cleared by the one thread that runs it.
    private var body: (@Sendable () -> Void)?

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    func run() {
        let body = self.body
        self.body = nil
        body?()
    }
}

/// Waits, suspending, until `semaphore` is signalled, for at most `seconds`; whether it was.
///
/// A thread of its own makes the blocking wait, so the caller's thread, of the pool or the main one, stays free.
/// Like `DispatchSemaphore.wait`, a wait that succeeds takes one signal.
public func signalled(_ semaphore: DispatchSemaphore, within seconds: Double = patience) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread {
            continuation.resume(returning: semaphore.wait(timeout: .now() + seconds) == .success)
        }.start()
    }
}

/// Expects `done` to be signalled within ``patience``: the work it stands for finished.
public func expectSignalled(_ done: DispatchSemaphore, sourceLocation: SourceLocation = #_sourceLocation) async {
    #expect(await signalled(done), "deadlock: the work never finished", sourceLocation: sourceLocation)
}

/// Waits, suspending, until `condition` holds, for at most ``patience``; fails instead of hanging.
public func expectEventually(
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async {
    guard await eventually(isolation: isolation, condition) else {
        Issue.record("the condition never held", sourceLocation: sourceLocation)
        return
    }
}

/// Waits, suspending, until `condition` holds, for at most `seconds`; whether it held.
public func eventually(
    within seconds: Double = patience,
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () -> Bool
) async -> Bool {
    let deadline = DispatchTime.now() + seconds
    while !condition() {
        guard DispatchTime.now() < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// After every `period` steps of a long loop on the main actor, lets the main-actor tests that run beside it take
/// their turn: the main queue is one for the whole process, and a loop that holds it for long, as a sanitizer makes a
/// loop of 100 000 steps do, makes their waits for it time out.
@MainActor
public func yieldMainActor(after step: Int, period: Int = 1_000) async {
    if step % period == period - 1 { await Task.yield() }
}

/// Cancels a subscription while one of its calls holds another thread, and tells whether the cancel waited for it.
///
/// On a thread of its own: once `entered` is signalled (the call has begun and waits for `release`), runs `cancel`
/// on a third thread; waits until that cancel either waits for the call (`isWaiting`) or has returned; then signals
/// `release` and waits for the cancel to return. `cancelReturned` runs right after `cancel` returns.
///
/// - Returns: A semaphore signalled once all that is done, and whether `isWaiting` was seen before the release.
public func cancelWhileHeld(
    entered: DispatchSemaphore, release: DispatchSemaphore,
    isWaiting: @escaping @Sendable () -> Bool,
    cancel: @escaping @Sendable () -> Void,
    cancelReturned: @escaping @Sendable () -> Void = {}
) -> (done: DispatchSemaphore, sawWait: @Sendable () -> Bool) {
    let returned = DispatchSemaphore(value: 0)
    let sawWait = SeenFlag()
    let done = onAnotherThread {
        guard entered.wait(timeout: .now() + patience) == .success else { return }
        let canceller = onAnotherThread {
            cancel()
            cancelReturned()
            returned.signal()
        }
        let deadline = DispatchTime.now() + patience
        while !isWaiting(), DispatchTime.now() < deadline {
            if returned.wait(timeout: .now() + .microseconds(100)) == .success {
                returned.signal()
                break
            }
        }
        if isWaiting() { sawWait.set() }
        release.signal()
        _ = canceller.wait(timeout: .now() + patience)
    }
    return (done, { sawWait.isSet })
}

/// A flag that one thread sets and any reads.
private final class SeenFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
}
