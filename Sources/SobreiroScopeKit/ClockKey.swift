public import ScopeKit

/// The clock that a feature's timed work waits on: every effect's timing (debouncing, throttling, retries) and
/// period (`.every`).
///
/// Effects read it themselves, where their model's behavior stands, so no model stores a clock: a scope provides
/// one for its subtree, and a test replaces it with a `TestClock` that it moves. A `TestHost` provides its own.
/// A model whose own code sleeps reads it in ``ScopedViewModel/didBecomeActive(_:)``:
///
/// ```swift
/// func didBecomeActive(_ activation: Activation<ScoresViewModel>) {
///     activation.effect(.every(.seconds(30), while: \.isLive)) { [api] _ in
///         try await api.scores()
///     } reduce: { state, result in state.scores = (try? result.get()) ?? state.scores }
/// }
///
/// // In a test:
/// let scores = TestHost(ScoresViewModel())
/// await scores.clock.advance(by: .seconds(30))
/// ```
///
/// Where no scope provides one, it is the `ContinuousClock`.
public enum ClockKey: DependencyKey {
    /// The `ContinuousClock`.
    public static let defaultValue: any Clock<Duration> = ContinuousClock()
}
