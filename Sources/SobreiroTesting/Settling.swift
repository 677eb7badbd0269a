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
