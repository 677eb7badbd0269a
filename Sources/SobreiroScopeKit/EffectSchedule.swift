import Sobreiro
import SobreiroPrimitives

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
