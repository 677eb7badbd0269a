import ScopeKit
import Sobreiro
import SobreiroPrimitives

/// How an effect turns what it hears, a matching state or a new value, into the trigger of a run: at once for
/// the untimed forms, or as an ``EffectSchedule`` decides for the timed ones, so that both feed their runner
/// through the same subscriptions (``Activation/follow(_:matching:admission:subscribe:)`` and
/// ``Activation/follow(_:changesOf:admission:subscribe:)``).
protocol EffectAdmission<Value, Trigger>: Sendable {
    associatedtype Value: Sendable
    associatedtype Trigger: Sendable

    /// The trigger for `value`, which the effect heard now.
    func admit(_ value: Value) -> Trigger
    /// The trigger for a state that does not match: it starts no run, but under
    /// ``EffectStrategy/cancelOnNewState`` still ends the running ones.
    func passOver(_ value: Value) -> Trigger
    /// Whether `trigger` starts a run.
    func starts(_ trigger: Trigger) -> Bool
    /// The value `trigger` was made for.
    func value(of trigger: Trigger) -> Value
}

/// The admission of the untimed forms: every value starts a run at once, and is its own trigger.
struct ImmediateAdmission<Value: Sendable>: EffectAdmission {
    func admit(_ value: Value) -> Value { value }
    func passOver(_ value: Value) -> Value { value }
    func starts(_ trigger: Value) -> Bool { true }
    func value(of trigger: Value) -> Value { trigger }
}

/// The admission of the timed forms: the schedule decides whether and when a value starts a run.
struct ScheduledAdmission<Value: Sendable>: EffectAdmission {
    let schedule: EffectSchedule

    func admit(_ value: Value) -> TimedTrigger<Value> { schedule.admit(value) }
    func passOver(_ value: Value) -> TimedTrigger<Value> { TimedTrigger(value: value, admission: .dropped) }
    func starts(_ trigger: TimedTrigger<Value>) -> Bool { trigger.admission != .dropped }
    func value(of trigger: TimedTrigger<Value>) -> Value { trigger.value }
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
        let makeRunner = { @Sendable in
            EffectRunner(
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
        let driven = Locked((runner: makeRunner(), isEnded: false))
        return DrivenRuns { input in
            let trigger = schedule.admit(input)
            guard trigger.admission != .dropped else { return false }
            // An ended runner starts nothing.
            driven.withLock { $0.runner }.receive(trigger, version: 0, isMatch: true)
            return true
        } cancel: {
            // An ended runner never writes again: cancelling ends it, and inputs from now on go to a new one, unless
            // the activation has ended, whose last runner stays ended.
            var replaced = makeRunner()
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

extension Activation {
    /// Subscribes `runner` with `subscribe` to the model's states, each one that matches `predicate` a trigger as
    /// `admission` says, stamped with the version of its state.
    ///
    /// The model's own states, which it already deduplicates: no projection, no second comparison. The runner is
    /// the subscription's target, so the closure holds only the predicate.
    func follow<State, Admission: EffectAdmission, Output, Failure>(
        _ runner: EffectRunner<State, Admission.Trigger, Output, Failure>,
        matching predicate: @escaping @Sendable (State) -> Bool,
        admission: Admission,
        subscribe: EffectSubscribe<State>
    ) -> StateSubscription where Model: ViewModel<State>, Admission.Value == State {
        subscribe(model, runner) { target, state, version, notice in
            notice.willCall(target)
            let runner = unsafeDowncast(target, to: EffectRunner<State, Admission.Trigger, Output, Failure>.self)
            guard predicate(state) else {
                // A state that does not match still ends, under `cancelOnNewState`, the run of the one before.
                guard runner.hasRunsToCancel else { return }
                runner.receive(admission.passOver(state), version: version, isMatch: false)
                return
            }
            let trigger = admission.admit(state)
            runner.receive(trigger, version: version, isMatch: admission.starts(trigger))
        }
    }

    /// Subscribes `runner` with `subscribe` to the model's states, each new `value` of them a trigger as
    /// `admission` says.
    ///
    /// Every state, not only those with a new value: a write-back waiting for its value to hold again (see
    /// `EffectRunner`) checks it at each state the effect hears.
    func follow<State, Admission: EffectAdmission, Output, Failure>(
        _ runner: EffectRunner<State, Admission.Trigger, Output, Failure>,
        changesOf value: @escaping @Sendable (State) -> Admission.Value,
        admission: Admission,
        subscribe: EffectSubscribe<State>
    ) -> StateSubscription where Model: ViewModel<State>, Admission.Value: Equatable {
        subscribe(model, runner) { target, state, version, notice in
            notice.willCall(target)
            let runner = unsafeDowncast(target, to: EffectRunner<State, Admission.Trigger, Output, Failure>.self)
            let value = value(state)
            if let last = runner.lastTrigger, admission.value(of: last) == value {
                runner.hear()
                return
            }
            // A value that starts no run still ends, under `cancelOnNewState`, the run of the value before.
            let trigger = admission.admit(value)
            runner.lastTrigger = trigger
            runner.receive(trigger, version: version, isMatch: admission.starts(trigger))
        }
    }
}
