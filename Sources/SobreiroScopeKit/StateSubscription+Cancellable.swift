public import ScopeKit
public import Sobreiro

/// A subscription between view models is a cancellable, so a behavior can tie it to its activation:
///
/// ```swift
/// override func willActivate(cancellables: inout Set<AnyCancellable>) {
///     dashboard.subscribe(to: session) { [dashboard] in dashboard.sessionDidChange($0) }
///         .store(in: &cancellables)
/// }
/// ```
///
/// The subscription then ends when the behavior deactivates, and starts again, resynced with the current
/// state of the followed model, at its next activation.
extension StateSubscription: Cancellable {}
