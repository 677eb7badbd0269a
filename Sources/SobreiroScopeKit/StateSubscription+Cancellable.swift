public import ScopeKit
public import Sobreiro

/// Every subscription to a view model (of a view, of another model, or of a projection) is a cancellable, so a
/// behavior can tie it to its activation:
///
/// ```swift
/// override func willActivate(cancellables: inout Set<AnyCancellable>) {
///     model.subscribe(view: self).store(in: &cancellables)
///     dashboard.subscribe(to: session, onChange: DashboardViewModel.sessionDidChange)
///         .store(in: &cancellables)
/// }
/// ```
///
/// The subscription then ends when the behavior deactivates, and starts again, resynced with the current
/// state of the followed model, at its next activation.
extension StateSubscription: Cancellable {}
