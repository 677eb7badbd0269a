public import ScopeKit

/// The clock that a feature's timed work waits on: polling, debouncing, throttling, retries.
///
/// Read it in ``ScopedViewModel/didBecomeActive(_:)`` and give it to the effects that take a clock, so that a test
/// replaces it for a whole subtree with a `TestClock` and moves time itself:
///
/// ```swift
/// func didBecomeActive(_ activation: Activation<ScoresViewModel>) {
///     let clock = activation.dependency(ClockKey.self)
///     activation.effect(every: .seconds(30), clock: clock, while: \.isLive) { [api] _ in
///         try await api.scores()
///     } reduce: { state, result in state.scores = (try? result.get()) ?? state.scores }
/// }
///
/// // In a test:
/// let clock = TestClock()
/// let scores = TestHost(ScoresViewModel(), dependencies: DependencyValues().with(ClockKey.self, clock))
/// await clock.advance(by: .seconds(30))
/// ```
///
/// Where no scope provides one, it is the `ContinuousClock`, the one effects use when they are given none.
public enum ClockKey: DependencyKey {
    /// The `ContinuousClock`.
    public static let defaultValue: any Clock<Duration> = ContinuousClock()
}
