import ScopeKit
public import Sobreiro
import SobreiroPrimitives

extension Activation {
    /// Runs `operation` for each input sent to `trigger` while this activation lasts, and writes its result back
    /// into the model.
    ///
    /// The explicit form of an effect: the work starts because a method of the model said so, with
    /// ``EffectTrigger/send(_:)``, not because the state matches something. `reduce` receives the outcome inside
    /// a transaction, a failure as `.failure`. Nothing is written back after the activation ends or after
    /// ``EffectTrigger/cancel()``; the state may change meanwhile without dropping the result.
    ///
    /// ```swift
    /// func didBecomeActive(_ activation: Activation<FeedViewModel>) {
    ///     activation.effect(on: refreshing, timing: .throttled(for: .seconds(2), keeping: .first)) {
    ///         try await api.items()
    ///     } reduce: { state, result in
    ///         state.items = (try? result.get()) ?? state.items
    ///     }
    /// }
    ///
    /// func refresh() { refreshing.send() }
    /// ```
    ///
    /// - Parameters:
    ///   - trigger: The trigger the model sends to; it drives this effect until the activation ends.
    ///   - timing: When runs start, and whether they retry failures; ``EffectTiming/immediate`` by default.
    ///   - strategy: What a new input does to a running operation: cancel it (the default, a restart) or let it
    ///     finish alongside.
    ///   - operation: The asynchronous work, given the input. It should honour cancellation.
    ///   - reduce: Writes the outcome into the state, inside a transaction.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @discardableResult
    public func effect<State, Input, Output: Sendable, Failure: Error>(
        on trigger: EffectTrigger<Input>,
        timing: EffectTiming = .immediate,
        strategy: EffectStrategy = .cancelOnNewState,
        run operation: @escaping @Sendable (Input) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State> {
        let origin = EffectOrigin(form: "effect(on:)", fileID: fileID, line: line)
        guard admitsWork(origin) else { return false }
        let schedule = EffectSchedule(timing)
        let model: ViewModel<State> = model
        let timed = schedule.timed(operation)
        let reducing = EffectSchedule.reducing(reduce)
        // Any state is current for an input: a write-back waits only for no change to commit under its check.
        let makeRunner = { @Sendable in
            EffectRunner(
                model: model,
                origin: origin,
                strategy: strategy,
                freshness: .unchangedValue { _, _ in true },
                operation: timed,
                reduce: reducing
            )
        }
        // The runner that takes inputs now, and whether the activation has ended it, under one lock: a cancel that
        // races the end of the activation must not put a new runner in after the end took the last one.
        let driven = Locked((runner: makeRunner(), isEnded: false))
        let connection = TriggerConnection<Input> { input in
            let trigger = schedule.admit(input)
            guard trigger.admission != .dropped else { return false }
            // An ended runner starts nothing.
            driven.withLock { $0.runner }.receive(trigger, version: 0, isMatch: true)
            return true
        } cancel: {
            // An ended runner never writes again: cancelling ends it, and inputs sent from now on go to a new one,
            // unless the activation has ended, whose last runner stays ended.
            var replaced = makeRunner()
            driven.withLock { driven in
                if !driven.isEnded { swap(&driven.runner, &replaced) }
            }
            replaced.end()
        }
        trigger.connect(connection)
        store(
            AnyCancellable {
                trigger.disconnect(connection)
                driven.withLock { driven in
                    driven.isEnded = true
                    return driven.runner
                }.end()
            }
        )
        return true
    }
}
