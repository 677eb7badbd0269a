import Dispatch
import SobreiroScopeKit

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Waits until every effect operation of `model` has finished or is asleep on a ``TestClock``.
///
/// Call it after a change that starts effects, before asserting what they wrote back. Each operation that ran
/// to its end has written its result back by then; the others sleep on a ``TestClock`` or wait for the next element
/// of a sequence they consume. The wait suspends, and holds up no thread. `timeout` is a safety net, far longer than
/// settling takes even on a busy machine: if the effects have not settled by then (an operation waits for
/// something else, such as a real clock or a request), the test fails at this line, naming what still runs,
/// instead of hanging.
///
/// ```swift
/// model.search("oak")
/// await settleEffects(of: model)
/// states.expect(.searching("oak"), .results(["oak"]))
/// ```
///
/// It sees the effects of a model hosted by a ``TestHost``, or bound in a tree whose root provides
/// `.testing(clock:)` (``ScopeKit/DependencyValues/testing(clock:)``). For a model whose effects run in any other
/// tree, it fails at once, saying how to provide them.
///
/// - Parameters:
///   - model: A view model bound to a behavior, whose activation runs effects.
///   - timeout: The safety net: how long to wait for the effects to settle before failing.
///   - fileID: The caller's file ID, where a failure is reported; leave the default.
///   - filePath: The caller's file path, where a failure is reported; leave the default.
///   - line: The caller's line, where a failure is reported; leave the default.
///   - column: The caller's column, where a failure is reported; leave the default.
public func settleEffects(
    of model: some AnyObject & Sendable,
    timeout: Duration = .seconds(30),
    fileID: String = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) async {
    let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard let activity = EffectActivity.of(model) else {
        if UntrackedEffects.contains(model) {
            reportFailure(untrackedEffects(of: model), at: location)
            return
        }
        // A scoped model with no effect running has none to wait for; anything else was passed by mistake.
        guard !(model is any ScopedViewModel) else { return }
        reportFailure(
            "\(type(of: model)) has no effects to wait for: it is not a ScopedViewModel. Pass the view model whose "
                + "activation declares the effects (activation.effect(…)), not its behavior or another object.",
            at: location
        )
        return
    }
    guard await !activity.wait(until: .settled, expire: expiring(after: timeout)) else { return }
    reportFailure(
        "the effects of \(type(of: model)) did not settle within \(timeout): " + unsettled(activity),
        at: location
    )
}

/// How long a wait of this module that takes no `timeout`, such as an advance of a ``TestClock``, lasts at most: a
/// safety net, far longer than any wait of a correct test takes, even on a machine whose every core is busy. That is
/// 30 seconds, as the defaults of the `timeout` parameters say, and six times as long in a process that
/// ThreadSanitizer or AddressSanitizer instruments, where code runs several times slower and a suite's threads may
/// wait minutes for a core.
package let safetyNet: Duration = isInstrumentedBySanitizer ? .seconds(180) : .seconds(30)

/// Whether ThreadSanitizer or AddressSanitizer instruments this process: their runtimes define these symbols.
private let isInstrumentedBySanitizer: Bool = ["__tsan_init", "__asan_init"].contains { (symbol: String) in
    #if canImport(Darwin)
        dlsym(UnsafeMutableRawPointer(bitPattern: -2), symbol) != nil  // RTLD_DEFAULT
    #else
        dlsym(nil, symbol) != nil
    #endif
}

/// Why `activity` has not settled, for a failure message.
func unsettled(_ activity: EffectActivity) -> String {
    unsettled(isWaitingForMainQueue: activity.isWaitingForMainQueue, operations: activity.unfinishedOperations)
}

/// Why effects have not settled: the main queue has not run what was queued on it, or `operations` still run.
package func unsettled(isWaitingForMainQueue: Bool, operations: [UnfinishedOperations]) -> String {
    guard !isWaitingForMainQueue else {
        return "every operation is parked, but the main queue did not get to run the jobs queued on it, which "
            + "settling waits for in case one belongs to an operation: the main thread was busy the whole time, "
            + "blocked or running something long."
    }
    let running = operations.filter { $0.state == .running }
    guard !running.isEmpty else {
        return "the operations kept starting or waking, and never were all parked at once."
    }
    return "\(running.reduce(0) { $0 + $1.count }) operation(s) still run, waiting for something other than a "
        + "TestClock or a sequence they consume, which never settles:\n"
        + running.map { "  \(describe($0))" }.joined(separator: "\n")
}

/// One line naming an effect and how many of its operations there are.
private func describe(_ operations: UnfinishedOperations) -> String {
    operations.count > 1 ? "\(operations.origin) (×\(operations.count))" : "\(operations.origin)"
}

/// Asserts that every effect operation of `model` has stopped, waiting up to `timeout` for cancelled ones to
/// return.
///
/// Call it after the behavior the model is bound to deactivates: every operation was cancelled then, and each
/// should end soon after, as operations that honour cancellation do.
///
/// ```swift
/// screen.detach()
/// await expectEffectsStopped(of: model)
/// ```
///
/// - Parameters:
///   - model: A view model bound to a behavior.
///   - timeout: The safety net: how long cancelled operations may take to return before the test fails.
///   - fileID: The caller's file ID, where a failure is reported; leave the default.
///   - filePath: The caller's file path, where a failure is reported; leave the default.
///   - line: The caller's line, where a failure is reported; leave the default.
///   - column: The caller's column, where a failure is reported; leave the default.
public func expectEffectsStopped(
    of model: some AnyObject & Sendable,
    timeout: Duration = .seconds(30),
    fileID: String = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) async {
    let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    // No activity: every effect of the model is gone, so none runs.
    guard let activity = EffectActivity.of(model),
        await !activity.wait(until: .stopped, expire: expiring(after: timeout))
    else { return }
    reportFailure(
        "\(activity.running) effect operation(s) of \(type(of: model)) still run \(timeout) after they should have "
            + "stopped: an operation that ignores cancellation outlives its activation.",
        at: location
    )
}

/// Whether a test may end while effect operations of its model still run.
///
/// A test that ends with an operation still running has not seen what that operation would write back, much as a
/// state left unasserted goes unseen: by default, ``TestHost`` fails such a test at the line that hosted the model,
/// naming each effect that still runs.
///
/// ```swift
/// let feed = TestHost(FeedModel(), effects: .mayOutliveTest)  // the feed's socket stays open to the end
/// ```
public enum EffectExhaustivity: Sendable {
    /// Every effect operation must have finished when the test ends; one that still runs, even asleep on a
    /// ``TestClock``, fails the test.
    case exhaustive
    /// Effect operations may still run when the test ends; tearing the host down cancels them.
    case mayOutliveTest
}

/// Asserts that no effect operation of `model` still runs: each one has finished and written its result back, or
/// is writing it back now.
///
/// ``TestHost`` makes this check when the test ends. Call it yourself at the end of a test that builds its own
/// tree, before it detaches the model's behavior, which would cancel what still runs. It waits for nothing: it
/// reports at once each operation that is running its body, saying what it waits for (a ``TestClock``, the next
/// element of a sequence it consumes, or something else). An operation whose body has returned and that is
/// writing its result back is not reported: the test has seen, or is about to see, what it wrote. Nor is one that
/// was cancelled and is ending, or one whose task has not started yet, which the tear-down calls off.
///
/// ```swift
/// await clock.advance(by: .seconds(1))
/// states.expect(ListState(phase: .loaded(["cork", "oak"])))
/// expectEffectsFinished(of: list)
/// screen.detach()
/// ```
///
/// A task or a stream that writes from inside its body may still be returning after its last write: settle the
/// model's effects before this check (``settleEffects(of:timeout:fileID:filePath:line:column:)``), which waits for
/// that by suspending.
///
/// - Parameters:
///   - model: A view model bound to a behavior.
///   - fileID: The caller's file ID, where a failure is reported; leave the default.
///   - filePath: The caller's file path, where a failure is reported; leave the default.
///   - line: The caller's line, where a failure is reported; leave the default.
///   - column: The caller's column, where a failure is reported; leave the default.
public func expectEffectsFinished(
    of model: some AnyObject & Sendable,
    fileID: String = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    guard let failure = unfinishedEffects(of: model) else { return }
    reportFailure(failure, at: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// Why `model` has effect operations that have not finished, or `nil` if none has: what each one waits for, now.
///
/// It waits for nothing, so it holds up no thread, the main one included.
func unfinishedEffects(of model: some AnyObject & Sendable) -> String? {
    guard let activity = EffectActivity.of(model) else {
        return UntrackedEffects.contains(model) ? untrackedEffects(of: model) : nil
    }
    let operations = activity.unfinishedOperations
    let count = operations.reduce(0) { $0 + $1.count }
    guard count > 0 else { return nil }
    let states = Set(operations.map(\.state))
    let together: String
    let lines: [String]
    if states.count == 1, let state = states.first, state != .running {
        // One state for all: said once, in the first line.
        together = ", " + (count == 1 ? "" : "all ") + phrase(for: state)
        lines = operations.map { "  \(describe($0))" }
    } else {
        together = ""
        lines = operations.map { "  \(describe($0)), \(phrase(for: $0.state))" }
    }
    var advice: [String] = []
    if states.contains(.asleepOnClock) { advice.append("advance the TestClock they sleep on") }
    if states.contains(.waitingForSequence) { advice.append("finish the sequence they consume") }
    if states.contains(.running) { advice.append("let what they wait for answer") }
    advice.append("end the state that runs them")
    return "\(count) effect operation(s) of \(type(of: model)) still run at the end of the test\(together):\n"
        + lines.joined(separator: "\n")
        + "\nLet them finish before the test ends: " + advice.joined(separator: ", ")
        + ", or end the model's activation (detach() on its TestHost or its behavior), which an "
        + ".every with no while: needs. To let them run past the test, host the model with TestHost(model, effects: .mayOutliveTest)."
}

/// What an unfinished operation in `state` does, as a failure message says it.
private func phrase(for state: OperationState) -> String {
    switch state {
    case .asleepOnClock: "asleep on a TestClock"
    case .waitingForSequence: "waiting for the next element of a sequence it consumes"
    case .running: "running, or waiting for something other than a TestClock or a sequence it consumes"
    }
}

/// Schedules the function it is given to run once `duration` has passed.
func expiring(after duration: Duration) -> (@escaping @Sendable () -> Void) -> Void {
    { expire in
        DispatchQueue.global().asyncAfter(deadline: .now() + duration.dispatchInterval, execute: expire)
    }
}

extension Duration {
    /// The same length of time, for a dispatch deadline.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}

/// Why the effects of `model`, which runs them in a tree that does not provide the testing values, cannot be seen.
func untrackedEffects(of model: some AnyObject) -> String {
    "\(type(of: model)) runs effects in a tree that does not provide the testing values, so the test cannot see them: "
        + "host the model with TestHost, or provide them at the root of its tree with "
        + "root.provide(.testing(clock: clock)) before it becomes active."
}
