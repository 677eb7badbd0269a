import ScopeKit
public import Sobreiro

extension Activation {
    /// Runs `operation` for each trigger, at the times `timing` sets, and writes its result back into the model.
    ///
    /// The effect lasts from now until the activation ends. For each value that `trigger` gives (a matching state,
    /// a new value, a sent input, a tick, an element), it starts `operation` off the main actor; when `operation`
    /// returns or throws, `reduce` receives the outcome inside a transaction of the model, changing the state in
    /// place. A failure arrives as a `.failure` value for the model to show, never as a crash; a non-throwing
    /// operation has the failure type `Never`. When the activation ends, every operation is cancelled and none
    /// writes back after.
    ///
    /// ```swift
    /// activation.effect(.when { $0.phase == .loading }) { state in
    ///     try await api.items(page: state.page)
    /// } reduce: { state, result in
    ///     switch result {
    ///     case .success(let items): state.phase = .loaded(items)
    ///     case .failure(let error): state.phase = .failed("\(error)")
    ///     }
    /// }
    /// ```
    ///
    /// With ``EffectStrategy/cancelOnNewState`` (the default), each new trigger cancels the running operation,
    /// and a result is written back only while its trigger is current, as ``EffectTrigger`` says for each kind.
    /// With ``EffectStrategy/continueOnNewState``, each operation runs to its end and writes back, whatever happened
    /// since. `reduce` changes the state through its argument only: a write to the model from inside it would
    /// overlap that change, and stops the program naming the fix.
    ///
    /// - Parameters:
    ///   - trigger: What starts a run, and what the run is given.
    ///   - timing: When runs start, and whether they retry failures; see ``EffectTiming``. Its waits pass on the
    ///     clock the tree provides under ``ClockKey``.
    ///   - strategy: What a new trigger does to a running operation.
    ///   - operation: The asynchronous work, given the trigger's value. It should honour cancellation.
    ///   - reduce: Writes the outcome into the state, inside a transaction.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @inlinable
    @discardableResult
    public func effect<State, Value, Output: Sendable, Failure: Error>(
        _ trigger: EffectTrigger<State, Value>,
        timing: EffectTiming = .immediate,
        strategy: EffectStrategy = .cancelOnNewState,
        run operation: @escaping @Sendable (Value) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State> {
        startEffect(
            trigger, timing: timing, strategy: strategy, operation: operation, reduce: reduce, fold: nil,
            fileID: fileID, line: line, subscribe: ViewModel<State>.effectSubscribe)
    }

    /// Runs `operation` for each trigger, at the times `timing` sets, with nothing to write back: work that goes on
    /// through the model's methods, such as saving and dismissing when a meeting's time is up.
    ///
    /// As ``effect(_:timing:strategy:run:reduce:fileID:line:)``: the operation runs off the main actor, is cancelled
    /// by a newer trigger under ``EffectStrategy/cancelOnNewState`` and when the activation ends, and a test waits
    /// for it and fails if it still runs at the end. The model's methods it calls change the state in transactions
    /// of their own, which are not checked as a write-back is: once the operation has begun a call, the call runs.
    ///
    /// ```swift
    /// activation.effect(.when(\.isTimeUp)) { _ in
    ///     await self.endMeeting()  // saves the transcript, then dismisses the screen
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - trigger: What starts a run, and what the run is given.
    ///   - timing: When runs start; see ``EffectTiming``.
    ///   - strategy: What a new trigger does to a running operation.
    ///   - operation: The asynchronous work, given the trigger's value. It should honour cancellation.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @inlinable
    @discardableResult
    public func effect<State, Value>(
        _ trigger: EffectTrigger<State, Value>,
        timing: EffectTiming = .immediate,
        strategy: EffectStrategy = .cancelOnNewState,
        run operation: @escaping @Sendable (Value) async -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State> {
        startEffect(
            trigger, timing: timing, strategy: strategy, operation: operation, reduce: nil, fold: nil,
            fileID: fileID, line: line, subscribe: ViewModel<State>.effectSubscribe)
    }

    /// Writes each trigger's value into the state, in a transaction: a sequence's elements in order, a timer's
    /// ticks, a derived value kept in step.
    ///
    /// ```swift
    /// activation.effect(.elements(of: incoming)) { state, message in
    ///     state.messages.append(message)
    /// }
    /// activation.effect(.every(.seconds(1), while: \.isTimerOn, startingNow: false)) { state, _ in
    ///     state.count += 1
    /// }
    /// ```
    ///
    /// Nothing is written after the activation ends. A sequence's elements are written one transaction each, in
    /// order; the other triggers write each value as ``effect(_:timing:strategy:run:reduce:fileID:line:)`` writes
    /// back a result, under ``EffectStrategy/cancelOnNewState``.
    ///
    /// - Parameters:
    ///   - trigger: What gives the values.
    ///   - reduce: Writes a value into the state, inside a transaction.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @inlinable
    @discardableResult
    public func effect<State, Value>(
        _ trigger: EffectTrigger<State, Value>,
        reduce: @escaping @Sendable (inout State, Value) -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State> {
        startEffect(
            trigger, timing: .immediate, strategy: .cancelOnNewState, operation: { $0 },
            reduce: { state, value in
                switch value {
                case .success(let value): reduce(&state, value)
                }
            }, fold: reduce, fileID: fileID, line: line, subscribe: ViewModel<State>.effectSubscribe)
    }

    /// Starts an effect of any form; `subscribe` makes its subscription to the model, compiled where the state type
    /// is concrete.
    @usableFromInline
    func startEffect<State, Value, Output: Sendable, Failure: Error>(
        _ trigger: EffectTrigger<State, Value>,
        timing: EffectTiming,
        strategy: EffectStrategy,
        operation: @escaping @Sendable (Value) async throws(Failure) -> Output,
        reduce: (@Sendable (inout State, Result<Output, Failure>) -> Void)?,
        fold: (@Sendable (inout State, Value) -> Void)?,
        fileID: String,
        line: UInt,
        subscribe: @escaping EffectSubscribe<State>
    ) -> Bool where Model: ViewModel<State> {
        let origin = EffectOrigin(form: "effect(\(trigger.source.form))", fileID: fileID, line: line)
        guard admitsWork(origin) else { return false }
        let parts = EffectParts<State, Value, Output, Failure>(
            origin: origin, timing: timing, strategy: strategy, operation: operation, reduce: reduce, fold: fold,
            subscribe: subscribe)
        trigger.source.start(parts, on: self)
        return true
    }
}
