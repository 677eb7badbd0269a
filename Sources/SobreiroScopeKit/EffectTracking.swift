/// What the effect operations of one model report, so that a test can wait for them. Only a test process has one.
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

/// Gives the effects of each model the tracker they report to.
///
/// Apps have none: their effects start plain tasks, and an effect's start pays one check of a stored `nil`.
/// `SobreiroTesting` has one, which this module finds by the name of its type the first time an effect is created
/// (``installed``): a test process tracks its effects from the first one on, with no set-up, and an app, which
/// does not link `SobreiroTesting`, cannot pay for it.
package protocol EffectTracking: AnyObject, Sendable {
    /// Creates the process's tracking; called once.
    init()

    /// The tracker of the effect declared at `origin` for `model`, which reports its operations as that effect's.
    func tracker(for model: AnyObject, origin: EffectOrigin) -> any EffectTracker
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

/// Where an effect finds the tracking of the process.
package enum EffectHooks {
    /// The mangled name of `SobreiroTesting.TestEffectTracking`.
    static let testingTypeName = "15SobreiroTesting18TestEffectTrackingC"

    /// The tracking of this process: `SobreiroTesting`'s when that module is linked, otherwise `nil`.
    ///
    /// Looked up once, at the first effect; each effect reads it once, when it is created, and keeps its tracker.
    package static let installed: (any EffectTracking)? = {
        guard let type = _typeByName(testingTypeName) as? any EffectTracking.Type else { return nil }
        return type.init()
    }()
}
