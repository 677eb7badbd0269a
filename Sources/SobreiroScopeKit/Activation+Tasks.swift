import ScopeKit

extension Activation {
    /// Runs `operation` in a task of its own while the activation lasts, and cancels it when the activation ends.
    ///
    /// It is the one way to give an activation a task: besides being cancelled with it, the task counts as one of
    /// the model's effects in a test: `settleEffects(of:)` waits until it ends or sleeps on a `TestClock`, and `TestHost` fails a test that
    /// ends while it still runs, naming the line that started it. In an app it is a plain `Task`.
    ///
    /// ```swift
    /// activation.task { [weak self] in
    ///     for await _ in syncs { self?.reload() }
    /// }
    /// ```
    ///
    /// The task changes the model through its methods and transactions, as any other code does, and should honour
    /// cancellation. Nothing stops a write that it makes after the activation ended: for work whose result must
    /// never land once the activation is over, use an effect, whose write-back is checked in a transaction.
    ///
    /// - Parameters:
    ///   - operation: The work, run off the main actor.
    ///   - fileID: The caller's file ID, which names the task in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the task in a test that it outlives; leave the default.
    /// - Returns: `true` if the task started; `false` if the activation has ended, in which case nothing runs.
    @discardableResult
    public func task(
        _ operation: @escaping @Sendable () async -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool {
        let origin = EffectOrigin(form: "task", fileID: fileID, line: line)
        guard admitsWork(origin) else { return false }
        let task: Task<Void, Never>
        if let tracker = tracker(for: origin) {
            task = tracker.startOperation(operation)
        } else {
            task = Task(operation: operation)
        }
        store(AnyCancellable { task.cancel() })
        return true
    }
}
