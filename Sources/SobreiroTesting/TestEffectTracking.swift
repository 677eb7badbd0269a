package import SobreiroScopeKit

/// The effect tracking of processes that link this module: each effect reports to its model's ``EffectActivity``,
/// naming itself.
///
/// `SobreiroScopeKit` finds this class by name the first time an effect is created (``EffectHooks/installed``), so
/// a test needs no set-up for ``settleEffects(of:timeout:fileID:filePath:line:column:)`` to see the effects that
/// started before it; an app, which does not link this module, finds nothing and its effects report to no one.
/// Renaming or moving the class breaks that lookup: a test of this module checks that it still finds it.
package final class TestEffectTracking: EffectTracking {
    package init() {}

    package func tracker(for model: AnyObject, origin: EffectOrigin) -> any EffectTracker {
        OriginTracker(activity: EffectActivity.forModel(model), origin: origin)
    }
}

/// What one effect reports to: its model's activity, which counts the effect's operations under its origin.
private final class OriginTracker: EffectTracker {
    let activity: EffectActivity
    let origin: EffectOrigin

    init(activity: EffectActivity, origin: EffectOrigin) {
        self.activity = activity
        self.origin = origin
    }

    func operationWillStart() -> (any TaskExecutor)? { activity.operationWillStart(of: origin) }

    func run<Result: Sendable>(_ operation: () async -> Result) async -> Result {
        await activity.run(of: origin, operation)
    }

    func operationDidEnd() { activity.operationDidEnd(of: origin) }

    // The only wait an effect reports itself is for the next element of a sequence it consumes; a test clock
    // parks the operation on its own.
    func park() { currentOperation().park(on: .sequence) }

    func unpark() { currentOperation().unpark(on: .sequence) }

    /// The operation of the current task, which ``run(_:)`` made current.
    private func currentOperation() -> EffectOperation {
        guard let operation = EffectOperation.current, operation.activity === activity else {
            fatalError("EffectTracker.park() and unpark() must be called by an operation, inside run(_:)")
        }
        return operation
    }
}
