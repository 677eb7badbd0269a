import ScopeKit
import SobreiroPrimitives

/// What the effect operations of one model report, so that a test can wait for them. Only a tree under test has one.
package protocol EffectTracker: AnyObject, Sendable {
    /// An operation is about to start its task.
    ///
    /// - Returns: The executor the task prefers, or `nil` for the default one.
    func operationWillStart() -> (any TaskExecutor)?

    /// Runs the body of an operation's task, where the tracker can tell which operation the current task runs.
    func run<Result: Sendable>(_ operation: () async -> Result) async -> Result

    /// An operation has ended, its result written back or dropped.
    func operationDidEnd()

    /// The operation of the current task waits for something that a test drives, such as the next element of a
    /// stream or a test clock: until ``unpark()``, it counts as settled.
    func park()

    /// The operation that ``park()`` counted as waiting goes on.
    func unpark()
}

extension EffectTracker {
    /// Starts the task of one operation: counted from now until `finish` returns, on the executor the tracker
    /// prefers, with `operation` run where the tracker can tell it is this operation's (a test clock it sleeps on
    /// parks it).
    ///
    /// Every form of effect starts its tracked tasks here, so that they all report the same way. `finish` gets the
    /// result outside ``run(_:)``: a write-back that commits there runs subscribers and reducers, and a task they
    /// start must not pass for this operation.
    func startOperation<Result: Sendable>(
        _ operation: @escaping @Sendable () async -> Result,
        finish: @escaping @Sendable (Result) async -> Void
    ) -> Task<Void, Never> {
        let executor = operationWillStart()
        return Task(executorPreference: executor) { [self] in
            await finish(await run(operation))
            operationDidEnd()
        }
    }

    /// Starts the task of one operation that has no result to hand over, such as a stream's consumption.
    func startOperation(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        startOperation(operation) { _ in }
    }
}

/// Gives the effects of each model the tracker they report to: a test's view of the effects of a tree.
///
/// A tree provides it under ``EffectTrackingKey``, as any dependency: `SobreiroTesting`'s `TestHost` and its
/// testing values do. Apps provide none: their effects start plain tasks, and an activation pays one dependency
/// read, at its first effect, to find that out.
package protocol EffectTracking: AnyObject, Sendable {
    /// The tracker of the effect declared at `origin` for `model`, which reports its operations as that effect's.
    func tracker(for model: AnyObject, origin: EffectOrigin) -> any EffectTracker
}

/// The tracking that the effects of a subtree report to: `nil`, none, unless a test provides one.
package enum EffectTrackingKey: DependencyKey {
    package static let defaultValue: (any EffectTracking)? = nil
}

/// The models whose effects run in a tree that tracks none, in a process that runs tests: a test
/// that waits for such a model's effects would see none and go on at once, so the test kit asks here first and says
/// what is missing. Apps record nothing: they make no tracking.
package enum UntrackedEffects {
    private final class Entry {
        weak let model: AnyObject?

        init(_ model: AnyObject) { self.model = model }
    }

    /// By identity; an entry whose model is gone matches no later model at its address.
    private static let models = Locked<[ObjectIdentifier: Entry]>([:])

    /// Records that `model` runs effects that report to no tracking.
    static func record(_ model: AnyObject) {
        let replaced = models.withLock { $0.updateValue(Entry(model), forKey: ObjectIdentifier(model)) }
        withExtendedLifetime(replaced) {}  // let go of after unlocking
    }

    /// Whether `model` runs effects that report to no tracking. The caller holds `model`: loading an entry's weak
    /// reference under the lock makes no last reference to another object.
    package static func contains(_ model: AnyObject) -> Bool {
        models.withLock { $0[ObjectIdentifier(model)]?.model === model }
    }
}

/// Where an effect was declared and of which form, so that a test can name an effect that is still running.
///
/// Effects take it from hidden `fileID` and `line` parameters with caller defaults, and only a test process reads
/// it: an app's effects pass it to no tracker, so it costs them two arguments.
package struct EffectOrigin: Hashable, Sendable, CustomStringConvertible {
    /// The form of the effect, as its declaration reads: `effect(.when)`.
    package let form: String
    /// The file ID of the declaration, if known.
    package let fileID: String?
    /// The line of the declaration, if known.
    package let line: UInt

    /// Creates the origin of an effect of `form` declared at `fileID`:`line`.
    package init(form: String, fileID: String?, line: UInt) {
        self.form = form
        self.fileID = fileID
        self.line = line
    }

    /// The form, then where it was declared: `effect(.when) at App/ListViewModel.swift:42`.
    package var description: String {
        guard let fileID else { return form }
        return "\(form) at \(fileID):\(line)"
    }
}
