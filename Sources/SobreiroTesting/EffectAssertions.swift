import Dispatch
import SobreiroScopeKit

/// Waits until every effect operation of `model` has finished or is asleep on a ``TestClock``.
///
/// Call it after a change that starts effects, before asserting what they wrote back. Each operation that ran
/// to its end has written its result back by then. If the effects do not settle within `timeout` (an operation
/// waits on something other than a test clock), the test fails at this line instead of hanging.
///
/// ```swift
/// model.search("oak")
/// await settleEffects(of: model)
/// states.expect(.searching("oak"), .results(["oak"]))
/// ```
///
/// - Parameters:
///   - model: A view model bound to a behavior, whose activation runs effects.
///   - timeout: How long to wait for the effects to settle.
///   - fileID: The caller's file ID, where a failure is reported; leave the default.
///   - filePath: The caller's file path, where a failure is reported; leave the default.
///   - line: The caller's line, where a failure is reported; leave the default.
///   - column: The caller's column, where a failure is reported; leave the default.
public func settleEffects(
    of model: some AnyObject & Sendable,
    timeout: Duration = .seconds(5),
    fileID: String = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) async {
    let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard let activity = EffectActivity.of(model) else {
        // A scoped model with no effect running has settled; anything else was passed by mistake.
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

/// Why `activity` has not settled, for a failure message.
func unsettled(_ activity: EffectActivity) -> String {
    guard !activity.isWaitingForMainQueue else {
        return "every operation sleeps on a TestClock, but the main queue did not run the jobs queued on it. "
            + "Settling waits for them, in case one belongs to an operation: keep the main thread free while waiting."
    }
    return "\(activity.running) operation(s) still run. Operations settle when they finish or sleep on a TestClock; "
        + "one that waits for anything else never settles."
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
///   - timeout: How long cancelled operations may take to return.
///   - fileID: The caller's file ID, where a failure is reported; leave the default.
///   - filePath: The caller's file path, where a failure is reported; leave the default.
///   - line: The caller's line, where a failure is reported; leave the default.
///   - column: The caller's column, where a failure is reported; leave the default.
public func expectEffectsStopped(
    of model: some AnyObject & Sendable,
    timeout: Duration = .seconds(5),
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

/// Asserts that no effect operation of `model` still runs: each one has finished and written its result back.
///
/// ``TestHost`` makes this check when the test ends. Call it yourself at the end of a test that builds its own
/// tree, before it detaches the model's behavior, which would cancel what still runs. An operation that is returning
/// from its write-back is given up to 5 seconds to end; one asleep on a ``TestClock`` fails at once.
///
/// ```swift
/// await clock.advance(by: .seconds(1))
/// states.expect(ListState(phase: .loaded(["cork", "oak"])))
/// expectEffectsFinished(of: list)
/// screen.detach()
/// ```
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

/// Why `model` has effect operations that have not finished, or `nil` if none runs.
///
/// Blocks until every running operation sleeps on a test clock or none runs, for up to 5 seconds: an operation
/// whose write-back a test has already seen may not have returned from it yet. It does not wait for the main queue,
/// so it may block the main thread.
func unfinishedEffects(of model: some AnyObject & Sendable) -> String? {
    guard let activity = EffectActivity.of(model) else { return nil }
    _ = activity.block(until: .quiet, timeout: .seconds(5))
    let running = activity.runningOperations
    guard running.count > 0 else { return nil }
    let effects = running.effects.map { $0.count > 1 ? "\($0.origin) (×\($0.count))" : "\($0.origin)" }
    let asleep =
        switch running.parked {
        case 0: ""
        case running.count: running.count == 1 ? ", asleep on a TestClock" : ", all asleep on a TestClock"
        default: " (\(running.parked) of them asleep on a TestClock)"
        }
    return "\(running.count) effect operation(s) of \(type(of: model)) still run at the end of the test\(asleep):\n"
        + effects.map { "  \($0)" }.joined(separator: "\n")
        + "\nLet them finish before the test ends: advance the TestClock they sleep on, end the state that runs "
        + "them, or end the model's activation (detach() on its TestHost or its behavior), which a poll with no "
        + "while: needs. To let them run past the test, host the model with TestHost(model, effects: .mayOutliveTest)."
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
