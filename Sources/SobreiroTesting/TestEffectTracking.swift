public import ScopeKit
package import SobreiroScopeKit
import Synchronization

/// The effect tracking of trees under test: each effect reports to its model's ``EffectActivity``, naming itself.
///
/// A tree reads it as a dependency (`EffectTrackingKey`), which ``TestHost`` and
/// ``ScopeKit/DependencyValues/testing(clock:)`` provide; effects in any other tree report to no one.
package final class TestEffectTracking: EffectTracking {
    /// The one tracking that every tree under test provides.
    package static let shared = TestEffectTracking()

    private init() {
        noteTestProcess()
    }

    package func tracker(for model: AnyObject, origin: EffectOrigin) -> any EffectTracker {
        OriginTracker(activity: EffectActivity.forModel(model), origin: origin)
    }
}

extension DependencyValues {
    /// The values that a tree under test needs: `clock` under `ClockKey`, for the effects' timings and periods;
    /// the mark that makes reads of keys that no scope provides take their `testValue`; and the test kit's view of
    /// the effects, which ``settleEffects(of:timeout:fileID:filePath:line:column:)``,
    /// ``expectEffectsFinished(of:fileID:filePath:line:column:)`` and ``TestClock`` need to see them.
    ///
    /// ``TestHost`` provides them by itself. A test that builds its tree by hand provides them at its root:
    ///
    /// ```swift
    /// let root = RootScope()
    /// root.provide(.testing(clock: clock))
    /// ```
    ///
    /// - Parameter clock: The clock that the tree's effects wait on.
    /// - Returns: The values, to provide or override at the root of the tree.
    public static func testing(clock: TestClock) -> DependencyValues {
        noteTestProcess()
        return DependencyValues().with(ClockKey.self, clock).with(EffectTrackingKey.self, TestEffectTracking.shared)
            .with(TestTreeKey.self, true)
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

/// Says that this process runs tests, with the reporter of the failures that dependencies find: from then on, a
/// tree that forgets the testing values is found out, and test values report. Every host, clock and recorder of this
/// module calls it as it is made.
func noteTestProcess() {
    guard !DependencyTesting.isUnderTest.load(ordering: .acquiring) else { return }
    DependencyTesting.install { message, site in
        reportFailure(message, at: site)
    }
}
