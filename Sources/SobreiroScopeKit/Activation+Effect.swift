import ScopeKit
public import Sobreiro
import SobreiroPrimitives

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
    /// activation.effect(.onChange(of: \.isTimeUp)) { isTimeUp in
    ///     if isTimeUp { await self.endMeeting() }  // saves the transcript, then dismisses the screen
    /// }
    /// ```
    ///
    /// The methods' writes are new states of the model, which reach the effect as any other: under `.when`, a
    /// write that the operation makes cancels it (``EffectStrategy/cancelOnNewState``) and, while the predicate
    /// still holds, starts it again. Trigger work that writes to its own model with ``EffectTrigger/onChange(of:)``,
    /// which runs once per new value, or with ``EffectTrigger/input(_:)``.
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

extension Activation {
    /// Starts a runner of `effect`, with `operation` and `reduce` in place of the effect's own (timed ones, say), and lets
    /// `follow` subscribe it to its triggers, with the runner as the subscription's target: a subscription calls the
    /// runner's `receive` with each trigger, the version of the state it comes from and whether it matches, and
    /// `hear` with each state that gives no trigger, if the runner's freshness needs to hear them.
    func startRunner<State, Value, Trigger: Sendable, Output: Sendable, Failure, RunOutput: Sendable>(
        _ effect: EffectParts<State, Value, Output, Failure>,
        freshness: EffectFreshness<State, Trigger>,
        operation: @escaping @Sendable (Trigger) async throws(Failure) -> RunOutput,
        reduce: (@Sendable (inout State, Result<RunOutput, Failure>) -> Void)?,
        follow: (_ runner: EffectRunner<State, Trigger, RunOutput, Failure>) -> StateSubscription
    ) where Model: ViewModel<State> {
        let runner = EffectRunner(
            model: model,
            tracker: tracker(for: effect.origin),
            strategy: effect.strategy,
            freshness: freshness,
            operation: operation,
            reduce: reduce
        )
        store(runner as any ActivationEffect)
        runner.keep(follow(runner))
    }

    /// Starts the runs of `effect` for values that something other than the model's states hands over, an input
    /// or a sequence's elements: the runner that takes them now, what hands one to it (`false` if its timing
    /// ignored it), what cancels its runs, and what ends it with the activation.
    func startDriven<State, Value, Output: Sendable, Failure>(
        _ effect: EffectParts<State, Value, Output, Failure>
    ) -> DrivenRuns<Value> where Model: ViewModel<State> {
        let schedule = schedule(for: effect.timing) ?? EffectSchedule(.immediate, clock: nil)
        let model: ViewModel<State> = model
        let timed = schedule.timed(effect.operation)
        let reducing = effect.reduce.map { EffectSchedule.reducing($0) }
        let (tracker, strategy) = (tracker(for: effect.origin), effect.strategy)
        // Any state is current for an input: a write-back waits only for no change to commit under its check.
        // Weakly: an input the model owns, or a sequence's iteration, holds this closure, and must not keep the model.
        let makeRunner = { @Sendable [weak model] () -> EffectRunner<State, TimedTrigger<Value>, Output?, Failure>? in
            guard let model else { return nil }
            return EffectRunner(
                model: model,
                tracker: tracker,
                strategy: strategy,
                freshness: .unchangedValue { _, _ in true },
                operation: timed,
                reduce: reducing
            )
        }
        // The runner that takes inputs now, and whether the activation has ended it, under one lock: a cancel that
        // races the end of the activation must not put a new runner in after the end took the last one.
        // The activation holds the model while the effect starts.
        let driven = Locked((runner: makeRunner()!, isEnded: false))
        return DrivenRuns { input in
            let trigger = schedule.admit(input)
            guard trigger.admission != .dropped else { return false }
            // An ended runner starts nothing.
            driven.withLock { $0.runner }.receive(trigger, version: 0, isMatch: true)
            return true
        } cancel: {
            // An ended runner never writes again: cancelling ends it, and inputs from now on go to a new one, unless
            // the activation has ended, whose last runner stays ended. With the model gone, nothing writes anyway.
            guard var replaced = makeRunner() else { return }
            driven.withLock { driven in
                if !driven.isEnded { swap(&driven.runner, &replaced) }
            }
            replaced.end()
        } end: {
            driven.withLock { driven in
                driven.isEnded = true
                return driven.runner
            }.end()
        }
    }

    /// The schedule that applies `timing` to an effect's runs, on the clock the tree provides, or `nil` for a
    /// timing that changes nothing.
    func schedule(for timing: EffectTiming) -> EffectSchedule? {
        guard timing.shape != .immediate || timing.retry != nil else { return nil }
        return EffectSchedule(timing, clock: effectClock())
    }

    /// The clock that the tree provides under ``ClockKey``, which timed effects read and wait on.
    func effectClock() -> EffectClock {
        EffectClock(dependency(ClockKey.self))
    }
}

/// The runs of an effect that values from outside the model's states start: see
/// ``Activation/startDriven(_:)``.
struct DrivenRuns<Value: Sendable>: Sendable {
    let receive: @Sendable (Value) -> Bool
    let cancel: @Sendable () -> Void
    let end: @Sendable () -> Void
}

/// Subscribes an effect's runner, the target, to the model with `receive`, and returns the subscription.
///
/// The public effect forms are inlinable only to make this closure where the caller's state type is concrete: the
/// subscription's code (the change of the subscriber list, the first render) is then compiled for that type. Made
/// inside the library's generic code instead, it looks up the metadata of the state's generic types (optionals,
/// tuples, the subscription record) at run time, several times per subscription, which costs more than the rest
/// of an effect's start.
@usableFromInline
typealias EffectSubscribe<State: ViewState> = (
    _ model: ViewModel<State>,
    _ runner: AnyObject,
    _ receive: @escaping @Sendable (AnyObject, State, _ version: UInt64, CallNotice) -> Void
) -> StateSubscription

extension ViewModel {
    /// The ``EffectSubscribe`` of this model's state type: compiled for the concrete state in the inlinable
    /// code that names it, with no context to allocate.
    @inlinable
    static var effectSubscribe: EffectSubscribe<State> {
        { model, runner, receive in model.subscription(of: runner, replacingLive: false, receive) }
    }
}
