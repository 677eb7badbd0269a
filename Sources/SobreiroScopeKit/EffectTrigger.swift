import ScopeKit
public import Sobreiro
import SobreiroPrimitives

/// What starts the runs of an effect, and the value each run is given: a state that matches, a new value of a
/// part of the state, an input the model sends, a period, or the elements of a sequence.
///
/// Every effect takes one, as the first argument of ``Activation/effect(_:timing:strategy:run:reduce:fileID:line:)``:
///
/// ```swift
/// activation.effect(.when(\.isLoading)) { _ in try await api.items() } reduce: { state, result in … }
/// activation.effect(.onChange(of: \.query), timing: .debounced(for: .milliseconds(300))) { query in … } reduce: { … }
/// activation.effect(.input(uploading)) { photo in try await api.upload(photo) } reduce: { … }
/// activation.effect(.every(.seconds(30), while: \.isLive)) { _ in try await api.score() } reduce: { … }
/// activation.effect(.elements(of: socket.messages)) { state, message in state.messages.append(message) }
/// ```
///
/// The triggers that follow the state (``when(_:)``, ``onChange(of:)`` and ``every(_:while:startingNow:)`` with a
/// predicate) follow it as a subscriber does: under concurrent writes or re-entrancy, intermediate states are
/// coalesced, so a state that matched only until the next write may start no run.
public struct EffectTrigger<State: ViewState, Value: Sendable>: Sendable {
    let source: any EffectSource<State, Value>

    fileprivate init(_ source: some EffectSource<State, Value>) {
        self.source = source
    }
}

extension EffectTrigger where Value == State {
    /// Each state that matches `predicate`, the current one included: a run is given the matching state.
    ///
    /// While the predicate holds, every other change of the state is a new trigger: make it match only the states
    /// that ask for work, such as a list's `.loading` phase. To react to one part of the state only, use
    /// ``onChange(of:)``.
    ///
    /// Under ``EffectStrategy/cancelOnNewState`` a result is written back only if no change has committed since the
    /// state the run was given. The write-back transaction checks it, so the check and the commit are one step: a
    /// result never lands in a state that has moved on, even while a slow subscriber holds up the delivery of the
    /// newer state. Each new state, matching or not, also cancels the running operation.
    ///
    /// - Parameter predicate: Whether a state calls for a run. It runs on the delivering thread; keep it cheap.
    public static func when(_ predicate: @escaping @Sendable (State) -> Bool) -> Self {
        EffectTrigger(MatchingStates(predicate: predicate))
    }

    /// A tick every `interval` while the activation lasts, or while `predicate` holds: a run is given the committed
    /// state at its tick.
    ///
    /// A poll by default: the first tick comes at once, and each next one `interval` after the previous run wrote
    /// back, so runs never overlap. A timer passes `startingNow: false`, and its first tick comes one interval
    /// after the start. The interval passes on the clock that the tree provides under ``ClockKey``.
    ///
    /// What the ticks write never stops them: only the end of the activation does, or, with a `predicate`, a state
    /// where it no longer holds. Ticking starts again at the next state where it holds. A run's result never
    /// lands in a state where `predicate` does not hold, even one that has committed and not reached the effect
    /// yet: it is dropped. The effect's ``EffectStrategy`` does not apply, and of the timings only retrying does.
    ///
    /// ```swift
    /// activation.effect(.every(.seconds(1), while: \.isRecording, startingNow: false)) { state, _ in
    ///     state.secondsElapsed += 1
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The time between the end of one run and the next tick.
    ///   - predicate: Whether a state calls for ticking; `nil` ticks for the whole activation. It runs on the
    ///     delivering thread, and on the effect's before and after each run, never under the model's lock; keep
    ///     it cheap.
    ///   - startingNow: Whether the first tick comes at once (a poll) or after one interval (a timer).
    public static func every(
        _ interval: Duration,
        while predicate: (@Sendable (State) -> Bool)? = nil,
        startingNow: Bool = true
    ) -> Self {
        EffectTrigger(Period(interval: interval, predicate: predicate, startingNow: startingNow))
    }
}

extension EffectTrigger where Value: Equatable {
    /// The current value of a part of the state, then each value that differs (`==`) from the previous one the
    /// effect received: a run is given the value. Changes elsewhere in the state start nothing and drop no result.
    ///
    /// Under ``EffectStrategy/cancelOnNewState`` a result is written back only if the state being written still
    /// holds the value the run was given, and no newer value has reached the effect since. The value is checked on
    /// the committed state just before the write-back transaction, outside the model's lock, and the transaction
    /// writes only if no change committed in between. A run that finds another value waits: the effect hearing of
    /// that value ends it, and the effect hearing a state with the run's value again lets it write back. A value
    /// that changes and changes back before the effect hears of the change counts as unchanged. A value that is not
    /// equal to itself (a NaN) never holds, so its run's result is dropped.
    ///
    /// - Parameter value: The part of the state, often a key path. It runs on the delivering thread, and under
    ///   `cancelOnNewState` also on the thread of a run that ends, before its result is written back; keep it
    ///   cheap. It never runs under the model's lock.
    public static func onChange(of value: @escaping @Sendable (State) -> Value) -> Self {
        EffectTrigger(ChangingValues(value: value))
    }
}

extension EffectTrigger {
    /// Each input the model sends to `input` with ``EffectInput/send(_:)``: a run is given the input.
    ///
    /// The work starts because a method of the model said so, not because the state matches something, and
    /// ``EffectInput/cancel()`` ends it by name. The state may change meanwhile without dropping a result.
    ///
    /// - Parameter input: The input the model owns; it drives this effect until the activation ends.
    public static func input(_ input: EffectInput<Value>) -> Self {
        EffectTrigger(Inputs(input: input))
    }

    /// Each element of `sequence`, in order, iterated off the main actor while the activation lasts: a run is
    /// given the element.
    ///
    /// Given to ``Activation/effect(_:reduce:fileID:line:)``, each element is folded into the state in its own
    /// transaction, in order. Given to an operation, each element starts a run as an input does: under
    /// ``EffectStrategy/cancelOnNewState`` an element that arrives before the previous run wrote back cancels it,
    /// and its result is dropped; pass ``EffectStrategy/continueOnNewState`` to write back every element's. The iteration is cancelled when the activation ends, and no element is written after
    /// that, even one that had already arrived. Make the sequence in ``ScopedViewModel/didBecomeActive(_:)``, so
    /// that each activation iterates one of its own. While it waits for the next element, the effect counts as
    /// settled in a test.
    ///
    /// - Parameter sequence: The elements, such as a socket's messages or another model's `states()`.
    public static func elements<Elements: AsyncSequence & Sendable>(of sequence: Elements) -> Self
    where Elements.Element == Value, Elements.Failure == Never {
        EffectTrigger(
            SequenceElements<State, Value> { writer, each in
                var elements = sequence.makeAsyncIterator()
                while let element = await writer.waitIdle({ await elements.next(isolation: nil) }) {
                    guard each(element) else { return }
                }
            })
    }

    /// Each element of `sequence`, which may fail, as `elements(of:)` gives them: a run is given
    /// `.success(element)`, and the failure that ends the sequence arrives once, as `.failure`.
    ///
    /// - Parameter sequence: The elements, such as a socket's messages.
    public static func elements<Elements: AsyncSequence & Sendable>(of sequence: Elements) -> Self
    where Value == Result<Elements.Element, Elements.Failure> {
        EffectTrigger(
            SequenceElements<State, Value> { writer, each in
                var elements = sequence.makeAsyncIterator()
                do throws(Elements.Failure) {
                    while let element = try await writer.waitIdle({ () async throws(Elements.Failure) in
                        try await elements.next(isolation: nil)
                    }) {
                        guard each(.success(element)) else { return }
                    }
                } catch {
                    _ = each(.failure(error))
                }
            })
    }
}

/// The parts of one effect, as ``Activation`` gathers them, for its trigger's source to start.
struct EffectParts<State: ViewState, Value: Sendable, Output: Sendable, Failure: Error> {
    let origin: EffectOrigin
    let timing: EffectTiming
    let strategy: EffectStrategy
    let operation: @Sendable (Value) async throws(Failure) -> Output
    /// Writes a run's outcome into the state; `nil` for an effect that writes nothing back.
    let reduce: (@Sendable (inout State, Result<Output, Failure>) -> Void)?
    /// For ``Activation/effect(_:reduce:fileID:line:)``: writes each trigger's value into the state. A sequence's
    /// elements are folded with it in order, one transaction each; every other trigger runs `operation`, which
    /// returns its value, and writes it back with `reduce`, as any effect does.
    let fold: (@Sendable (inout State, Value) -> Void)?
    let subscribe: EffectSubscribe<State>
}

/// One kind of ``EffectTrigger``: how its triggers reach the runs of an effect.
protocol EffectSource<State, Value>: Sendable {
    associatedtype State: ViewState
    associatedtype Value: Sendable

    /// The trigger as a declaration spells it, such as `.when`, to name the effect in a test.
    var form: String { get }

    /// Starts `effect` on `activation`, which admits work.
    @MainActor
    func start<Model, Output: Sendable, Failure: Error>(
        _ effect: EffectParts<State, Value, Output, Failure>,
        on activation: Activation<Model>
    ) where Model: ViewModel<State>
}

/// ``EffectTrigger/when(_:)``.
private struct MatchingStates<State: ViewState>: EffectSource {
    var form: String { ".when" }
    let predicate: @Sendable (State) -> Bool

    func start<Model, Output: Sendable, Failure: Error>(
        _ effect: EffectParts<State, State, Output, Failure>,
        on activation: Activation<Model>
    ) where Model: ViewModel<State> {
        guard let schedule = activation.schedule(for: effect.timing) else {
            activation.startRunner(
                effect, freshness: .unchangedState, operation: effect.operation, reduce: effect.reduce
            ) { runner in
                activation.follow(
                    runner, matching: predicate, admission: ImmediateAdmission(), subscribe: effect.subscribe)
            }
            return
        }
        activation.startRunner(
            effect, freshness: .unchangedState, operation: schedule.timed(effect.operation),
            reduce: effect.reduce.map { EffectSchedule.reducing($0) }
        ) {
            runner in
            activation.follow(
                runner, matching: predicate, admission: ScheduledAdmission(schedule: schedule),
                subscribe: effect.subscribe)
        }
    }
}

/// ``EffectTrigger/onChange(of:)``.
private struct ChangingValues<State: ViewState, Value: Equatable & Sendable>: EffectSource {
    var form: String { ".onChange" }
    let value: @Sendable (State) -> Value

    func start<Model, Output: Sendable, Failure: Error>(
        _ effect: EffectParts<State, Value, Output, Failure>,
        on activation: Activation<Model>
    ) where Model: ViewModel<State> {
        let value = value
        guard let schedule = activation.schedule(for: effect.timing) else {
            activation.startRunner(
                effect, freshness: .unchangedValue(of: value), operation: effect.operation, reduce: effect.reduce
            ) { runner in
                activation.follow(
                    runner, changesOf: value, admission: ImmediateAdmission(), subscribe: effect.subscribe)
            }
            return
        }
        let freshness = EffectFreshness<State, TimedTrigger<Value>>.unchangedValue { state, trigger in
            value(state) == trigger.value
        }
        activation.startRunner(
            effect, freshness: freshness, operation: schedule.timed(effect.operation),
            reduce: effect.reduce.map { EffectSchedule.reducing($0) }
        ) { runner in
            activation.follow(
                runner, changesOf: value, admission: ScheduledAdmission(schedule: schedule),
                subscribe: effect.subscribe)
        }
    }
}

/// ``EffectTrigger/input(_:)``.
private struct Inputs<State: ViewState, Value: Sendable>: EffectSource {
    var form: String { ".input" }
    let input: EffectInput<Value>

    func start<Model, Output: Sendable, Failure: Error>(
        _ effect: EffectParts<State, Value, Output, Failure>,
        on activation: Activation<Model>
    ) where Model: ViewModel<State> {
        let driven = activation.startDriven(effect)
        let connection = TriggerConnection<Value>(receive: driven.receive, cancel: driven.cancel)
        input.connect(connection)
        activation.store(
            AnyCancellable { [input] in
                input.disconnect(connection)
                driven.end()
            }
        )
    }
}

/// `EffectTrigger.elements(of:)`: `drain` iterates the sequence, waiting for each element through the
/// writer it is given, and hands each element on until it is told to stop.
private struct SequenceElements<State: ViewState, Value: Sendable>: EffectSource {
    var form: String { ".elements" }
    let drain: @Sendable (_ writer: LongRuns<State>.Writer, _ each: (Value) -> Bool) async -> Void

    func start<Model, Output: Sendable, Failure: Error>(
        _ effect: EffectParts<State, Value, Output, Failure>,
        on activation: Activation<Model>
    ) where Model: ViewModel<State> {
        let runner = LongRuns<State>(longRunsOf: activation.model, tracker: activation.tracker(for: effect.origin))
        let drain = drain
        if let fold = effect.fold {
            // Each element is written as it comes, in order, in a transaction of its own.
            activation.store(runner as any ActivationEffect)
            runner.startLong { writer in
                await drain(writer) { element in writer.write { fold(&$0, element) } }
            }
            return
        }
        // Each element is an input to the effect's runs, as one that the model sends.
        let driven = activation.startDriven(effect)
        activation.store(
            AnyCancellable {
                runner.end()
                driven.end()
            }
        )
        // Only what hands an element over: the runs' other parts need not live as long as the sequence's iteration,
        // which may ignore cancellation.
        let receive = driven.receive
        runner.startLong { writer in
            await drain(writer) { element in
                _ = receive(element)
                return !Task.isCancelled
            }
        }
    }
}

/// ``EffectTrigger/every(_:while:startingNow:)``.
private struct Period<State: ViewState>: EffectSource {
    var form: String { ".every" }
    let interval: Duration
    let predicate: (@Sendable (State) -> Bool)?
    let startingNow: Bool

    func start<Model, Output: Sendable, Failure: Error>(
        _ effect: EffectParts<State, State, Output, Failure>,
        on activation: Activation<Model>
    ) where Model: ViewModel<State> {
        if effect.timing.shape != .immediate {
            fatalError(
                "effect(.every(…)) ticks at its own times: give it no debounced or throttled timing (retrying is fine)"
            )
        }
        if effect.strategy != .cancelOnNewState {
            fatalError("effect(.every(…)) runs one tick at a time: give it no strategy")
        }
        let clock = activation.effectClock()
        let schedule = activation.schedule(for: effect.timing)
        let operation = effect.operation
        let (interval, predicate, startingNow, reduce) = (interval, predicate, startingNow, effect.reduce)
        let freshness = EffectFreshness<State, Void>.holding(predicate)
        let runner = LongRuns<State>(longRunsOf: activation.model, tracker: activation.tracker(for: effect.origin))
        let model: ViewModel<State> = activation.model
        // A run's first tick counts from when it was started, not from when its task first runs.
        let tick = { @Sendable (startedAt: Duration) in
            { @Sendable [weak model] (writer: LongRuns<State>.Writer) async -> Void in
                if !startingNow {
                    do { try await clock.sleep(startedAt + interval) } catch _ { return }
                }
                // A run stopped while it waited, whose sleep may have returned just as it was cancelled, starts no
                // operation: checked after every wait, and after the predicate, which is the effect's code too.
                while !Task.isCancelled, let state = model?.state {
                    // A state where the predicate no longer holds may have committed before the subscription below
                    // hears it and stops this run: such a state is not polled, and a result never lands in one.
                    guard predicate?(state) ?? true else {
                        do { try await clock.sleep(clock.now() + interval) } catch _ { return }
                        continue
                    }
                    guard !Task.isCancelled else { return }
                    let result: Result<Output, Failure>
                    do throws(Failure) {
                        if let schedule {
                            result = .success(try await schedule.retrying(operation, with: state))
                        } else {
                            result = .success(try await operation(state))
                        }
                    } catch {
                        result = .failure(error)
                    }
                    if let reduce, writer.write(holding: freshness, { reduce(&$0, result) }) == .stopped { return }
                    do { try await clock.sleep(clock.now() + interval) } catch _ { return }
                }
            }
        }
        activation.store(runner as any ActivationEffect)
        guard let predicate else {
            runner.startLong(tick(clock.now()))
            return
        }
        let isTicking = LastValue<Bool>()
        // Its own writes reach the effect as any state does: they stop it only if the predicate no longer holds.
        runner.keep(
            effect.subscribe(model, runner) { target, state, _, notice in
                notice.willCall(target)
                let holds = predicate(state)
                guard isTicking.replace(with: holds) else { return }
                let runner = unsafeDowncast(target, to: LongRuns<State>.self)
                if holds { runner.startLong(tick(clock.now())) } else { runner.stop() }
            })
    }
}

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
