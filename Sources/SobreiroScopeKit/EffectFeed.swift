import ScopeKit
import Sobreiro

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
    /// Starts a runner and lets `follow` subscribe it to its triggers, with the runner as the subscription's
    /// target: a subscription calls the runner's `receive` with each trigger, the version of the state it comes
    /// from and whether it matches, and `hear` with each state that gives no trigger, if the runner's freshness
    /// needs to hear them. `origin` names the effect to a test's tracker.
    func startEffect<State, Trigger: Sendable, Output: Sendable, Failure>(
        origin: EffectOrigin,
        strategy: EffectStrategy,
        freshness: EffectFreshness<State, Trigger>,
        operation: @escaping @Sendable (Trigger) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        follow: (_ runner: EffectRunner<State, Trigger, Output, Failure>) -> StateSubscription
    ) -> Bool where Model: ViewModel<State> {
        guard admitsWork(origin) else { return false }
        let runner = EffectRunner(
            model: model,
            origin: origin,
            strategy: strategy,
            freshness: freshness,
            operation: operation,
            reduce: reduce
        )
        store(runner as any ActivationEffect)
        runner.keep(follow(runner))
        return true
    }

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
