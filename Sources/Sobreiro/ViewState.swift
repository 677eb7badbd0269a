/// A value that describes everything one screen or domain shows at one moment.
///
/// Make each state a value type whose cases cannot contradict each other, so that a screen can never be
/// *loading* and *failed* at once. `ViewState` adds no requirement beyond `Equatable` and `Sendable`:
/// a view model compares states with your `==` (synthesized or hand-written) to skip duplicates, and
/// hands states across threads.
///
/// ```swift
/// enum ListState: ViewState {
///     case loading
///     case loaded([String])
///     case failed(message: String)
/// }
/// ```
public protocol ViewState: Equatable, Sendable {}
