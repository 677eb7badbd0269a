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
                delay = delay * timing.multiplier
            }
        }
    }
}
