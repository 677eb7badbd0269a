import Sobreiro
import SobreiroPrimitives

/// When the runs of an effect start, and how a run answers a failure: debounced, throttled, retried with backoff,
/// each on the clock that the tree provides under ``ClockKey``.
///
/// Pass it as the `timing:` of an effect. Debouncing and throttling decide which triggers start a run and when;
/// the effect's ``EffectStrategy`` still decides what a trigger that starts a run does to the operations already
/// running. Retrying wraps each run's operation: a failure is tried again after a growing delay, and the failure
/// that gives up reaches `reduce` as a value.
///
/// ```swift
/// activation.effect(.onChange(of: \.query), timing: .debounced(for: .milliseconds(300))) { query in
///     try await api.search(query)
/// } reduce: { state, result in
///     state.results = (try? result.get()) ?? []
/// }
/// ```
///
/// Every wait sleeps on the tree's clock, inside the effect's run: under a `TestHost`, a `TestClock` that the test moves with
/// `advance(by:)`, and `settleEffects(of:)` returns while a run waits on it.
public struct EffectTiming: Sendable {
    /// Which value a throttled effect runs for, when several triggers arrive within one interval.
    public enum ThrottledValue: Sendable, Equatable {
        /// The first trigger of an interval runs at once; the others of that interval are ignored.
        case first
        /// The first trigger of an interval runs at once; the last of the others runs when the interval ends.
        case latest
    }

    package enum Shape: Sendable, Equatable {
        case immediate
        case debounce(Duration)
        case throttle(Duration, ThrottledValue)
    }

    let shape: Shape
    let retry: Retry?

    /// How a run retries a failing operation.
    struct Retry: Sendable {
        let retries: Int
        let initialDelay: Duration
        let multiplier: Double
    }

    /// Every trigger starts a run at once, and a failure reaches `reduce` at once: the timing of an effect given
    /// no `timing:`.
    public static let immediate = EffectTiming(shape: .immediate, retry: nil)

    /// Starts a run only once triggers have stopped arriving for `duration`; a new trigger replaces the one that
    /// waits.
    ///
    /// The run waits on the tree's clock before its operation starts, and a newer trigger cancels that wait, so a search
    /// runs for the query the user stopped typing at. Under ``EffectStrategy/cancelOnNewState`` a newer trigger
    /// also cancels an operation that already started.
    ///
    /// ```swift
    /// activation.effect(.onChange(of: \.query), timing: .debounced(for: .milliseconds(300))) { query in
    ///     try await api.search(query)
    /// } reduce: { state, result in state.results = (try? result.get()) ?? [] }
    /// ```
    ///
    /// - Parameters:
    ///   - duration: How long triggers must stop arriving before a run starts.
    public static func debounced(for duration: Duration) -> EffectTiming {
        EffectTiming(shape: .debounce(duration), retry: nil)
    }

    /// Starts at most one run per `interval`: the first trigger at once, then, as `keeping` says, either nothing
    /// more until the interval ends, or a run for the latest trigger when it ends.
    ///
    /// An interval starts with each run. A trigger that starts no run changes nothing for a trigger-driven effect
    /// (a tap ignored is just ignored); for a state-driven one, it is still a new state, which under
    /// ``EffectStrategy/cancelOnNewState`` makes the running operation out of date.
    ///
    /// ```swift
    /// activation.effect(.input(refresh), timing: .throttled(for: .seconds(2), keeping: .first)) {
    ///     try await api.items()
    /// } reduce: { state, result in state.items = (try? result.get()) ?? state.items }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The shortest time between the starts of two runs.
    ///   - keeping: Which of the triggers of an interval runs.
    public static func throttled(for interval: Duration, keeping: ThrottledValue = .latest) -> EffectTiming {
        EffectTiming(shape: .throttle(interval, keeping), retry: nil)
    }

    /// Starts each run at once, and tries a failing operation again, up to `retries` times, after delays that
    /// grow: `initialDelay`, then `initialDelay × multiplier`, and so on.
    ///
    /// The failure of the last attempt reaches `reduce` as `.failure`; a success at any attempt reaches it as
    /// `.success`. Cancelling the run (a newer trigger, a deactivation) ends the waits at once, and the run writes
    /// nothing back.
    ///
    /// ```swift
    /// activation.effect(.when(\.isLoading), timing: .retrying(upTo: 3, initialDelay: .seconds(1))) { _ in
    ///     try await api.items()
    /// } reduce: { state, result in
    ///     state.isLoading = false
    ///     state.items = (try? result.get()) ?? []
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - retries: How many times to try again after the first failure; `0` never retries.
    ///   - initialDelay: The wait before the first retry.
    ///   - multiplier: How much longer each wait is than the previous one.
    public static func retrying(upTo retries: Int, initialDelay: Duration, multiplier: Double = 2) -> EffectTiming {
        immediate.retrying(upTo: retries, initialDelay: initialDelay, multiplier: multiplier)
    }

    /// This timing, whose runs also retry a failing operation as ``retrying(upTo:initialDelay:multiplier:)``
    /// does: a debounced search that tries twice more before it shows an error, for example.
    ///
    /// ```swift
    /// timing: .debounced(for: .milliseconds(300)).retrying(upTo: 2, initialDelay: .seconds(1))
    /// ```
    ///
    /// - Parameters:
    ///   - retries: How many times to try again after the first failure; `0` never retries.
    ///   - initialDelay: The wait before the first retry.
    ///   - multiplier: How much longer each wait is than the previous one.
    public func retrying(upTo retries: Int, initialDelay: Duration, multiplier: Double = 2) -> EffectTiming {
        if retries < 0 { fatalError("retrying(upTo:) needs a number of retries of 0 or more, not \(retries)") }
        if !(multiplier >= 1) { fatalError("retrying(multiplier:) needs delays that do not shrink: pass 1 or more") }
        return EffectTiming(
            shape: shape, retry: Retry(retries: retries, initialDelay: initialDelay, multiplier: multiplier))
    }
}

/// A clock whose instants are reduced to the time since it was captured, so that the timing of an effect holds
/// one clock of any type without being generic over it.
struct EffectClock: Sendable {
    /// The time since the clock was captured.
    let now: @Sendable () -> Duration
    /// Sleeps until the given time since the clock was captured.
    let sleep: @Sendable (_ until: Duration) async throws -> Void

    init(_ clock: any Clock<Duration>) {
        self.init(opening: clock)
    }

    private init<C: Clock>(opening clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
    }
}

/// How a run retries a failing operation, on the clock it waits on.
struct RetryPolicy: Sendable {
    let timing: EffectTiming.Retry
    let clock: EffectClock

    /// Runs `operation` with `input`, retrying its failures with growing delays; throws the last failure.
    func run<Input, Output, Failure: Error>(
        _ operation: @Sendable (Input) async throws(Failure) -> Output,
        with input: Input
    ) async throws(Failure) -> Output {
        var delay = timing.initialDelay
        var retried = 0
        while true {
            do throws(Failure) {
                return try await operation(input)
            } catch {
                guard retried < timing.retries, !Task.isCancelled else { throw error }
                retried += 1
                // A cancelled wait gives up with the failure in hand: the run that was cancelled writes nothing.
                do { try await clock.sleep(clock.now() + delay) } catch _ { throw error }
                if Task.isCancelled { throw error }
                delay = delay * timing.multiplier
            }
        }
    }
}

/// Decides, for each trigger of a debounced or throttled effect, whether it starts a run and when: the pure state
/// machine of ``EffectSchedule``. Times are durations since the schedule's clock was captured.
package struct TriggerGate: Equatable {
    /// What a trigger does.
    package enum Admission: Equatable {
        /// It starts a run now.
        case now
        /// It starts a run that waits until `due`, then runs if no later trigger took its place: see
        /// ``claim(_:due:)``.
        case delayed(due: Duration, ticket: UInt64)
        /// It starts no run.
        case dropped
    }

    let shape: EffectTiming.Shape
    /// The latest time admitted, so that times read on several threads never go back.
    private var latest: Duration = .zero
    /// The end of the throttling interval that began with the last run, if any.
    private var intervalEnd: Duration?
    /// Whether a run is due at `intervalEnd`: the next interval begins with it.
    private var hasTrailingRun = false
    private var tickets: UInt64 = 0
    /// The waiting runs that no later trigger has replaced, by the time they are due.
    private var waiting: [Duration: UInt64] = [:]

    package init(shape: EffectTiming.Shape) {
        self.shape = shape
    }

    /// Admits a trigger that arrives at `now`.
    package mutating func admit(at now: Duration) -> Admission {
        latest = max(latest, now)
        let now = latest
        switch shape {
        case .immediate:
            return .now
        case .debounce(let duration):
            // Every trigger replaces whichever run waits.
            waiting.removeAll()
            return delay(until: now + duration)
        case .throttle(let interval, let keeping):
            if var end = intervalEnd, now < end || hasTrailingRun {
                if now >= end {
                    // The run due at `end` began an interval of its own; this trigger falls in it or after it.
                    end += interval
                    guard now < end else { return startInterval(at: now, of: interval) }
                    intervalEnd = end
                    hasTrailingRun = false
                }
                guard keeping == .latest else { return .dropped }
                hasTrailingRun = true
                return delay(until: end)
            }
            return startInterval(at: now, of: interval)
        }
    }

    /// Whether the waiting run with `ticket`, due at `due`, still runs: no later trigger replaced it. It claims its
    /// place, so it answers `true` once.
    package mutating func claim(_ ticket: UInt64, due: Duration) -> Bool {
        guard waiting[due] == ticket else { return false }
        waiting[due] = nil
        return true
    }

    private mutating func startInterval(at now: Duration, of interval: Duration) -> Admission {
        intervalEnd = now + interval
        hasTrailingRun = false
        return .now
    }

    private mutating func delay(until due: Duration) -> Admission {
        tickets &+= 1
        waiting[due] = tickets
        return .delayed(due: due, ticket: tickets)
    }
}

/// A trigger on its way to a run, with when the run may start.
struct TimedTrigger<Value: Sendable>: Sendable {
    let value: Value
    let admission: TriggerGate.Admission
}

/// Applies an ``EffectTiming`` to the runs of one effect: admits its triggers, makes each run wait until it is
/// due, and retries its operation.
///
/// The waits happen inside the runs the effect's runner starts, so they are cancelled, counted and settled as any
/// operation is, and a run that waits writes nothing back once cancelled.
final class EffectSchedule: Sendable {
    private let gate: Locked<TriggerGate>
    private let clock: EffectClock?
    private let retry: RetryPolicy?

    /// - Parameter clock: What the timing reads and waits on; `nil` only for a timing that never waits.
    init(_ timing: EffectTiming, clock: EffectClock?) {
        gate = Locked(TriggerGate(shape: timing.shape))
        self.clock = clock
        retry = clock.flatMap { clock in timing.retry.map { RetryPolicy(timing: $0, clock: clock) } }
    }

    /// Admits a trigger that arrives now. Reads the clock outside the lock: a clock may be the app's own code.
    func admit<Value>(_ value: Value) -> TimedTrigger<Value> {
        guard let clock else { return TimedTrigger(value: value, admission: .now) }
        let now = clock.now()
        return TimedTrigger(value: value, admission: gate.withLock { $0.admit(at: now) })
    }

    /// `operation`, made to wait for its trigger's time and to retry its failures. It returns `nil` for a run
    /// that a later trigger replaced, or that was cancelled while it waited.
    func timed<Value, Output, Failure: Error>(
        _ operation: @escaping @Sendable (Value) async throws(Failure) -> Output
    ) -> @Sendable (TimedTrigger<Value>) async throws(Failure) -> Output? {
        { [self] trigger throws(Failure) in
            if case .delayed(let due, let ticket) = trigger.admission, let clock {
                do { try await clock.sleep(due) } catch _ { return nil }
                // A sleep may return as its run is cancelled: such a run starts no operation.
                guard !Task.isCancelled else { return nil }
                guard gate.withLock({ $0.claim(ticket, due: due) }) else { return nil }
            }
            return try await retrying(operation, with: trigger.value)
        }
    }

    /// Runs `operation` with `input`, retrying its failures as the timing says.
    func retrying<Input, Output, Failure: Error>(
        _ operation: @Sendable (Input) async throws(Failure) -> Output,
        with input: Input
    ) async throws(Failure) -> Output {
        guard let retry else { return try await operation(input) }
        return try await retry.run(operation, with: input)
    }

    /// `reduce`, given only the outcomes of runs that ran their operation.
    ///
    /// A replaced run is cancelled under ``EffectStrategy/cancelOnNewState`` and writes nothing; under
    /// ``EffectStrategy/continueOnNewState`` it is still written back, as an empty transaction that leaves the
    /// state unchanged and notifies nobody.
    static func reducing<State, Output, Failure>(
        _ reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void
    ) -> @Sendable (inout State, Result<Output?, Failure>) -> Void {
        { state, result in
            switch result {
            case .success(let output?): reduce(&state, .success(output))
            case .success(nil): return
            case .failure(let failure): reduce(&state, .failure(failure))
            }
        }
    }
}
