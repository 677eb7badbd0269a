public import ScopeKit

/// A view model that lives in a scope tree, bound to a `Behavior` with `bind(_:)`.
///
/// The behavior keeps the model alive and tells it about its lifecycle, on the main actor: ``didLoad(_:)`` once,
/// at the first activation; ``didBecomeActive(_:)`` at every activation, with an ``Activation`` that holds the
/// work of that activation; ``didBecomeInactive()`` when it ends, after that work was cancelled. Every hook has
/// an empty default, so a model implements only the ones it needs.
///
/// ```swift
/// final class ListViewModel: ViewModel<ListState>, ScopedViewModel, @unchecked Sendable {
///     let session: SessionViewModel
///     let api: any ItemsAPI
///
///     func didBecomeActive(_ activation: Activation<ListViewModel>) {
///         subscribe(to: session, onChange: ListViewModel.sessionDidChange).store(in: activation)
///         activation.effect(.when(\.isLoading)) { [api] _ in try await api.items() } reduce: { state, result in
///             switch result {
///             case .success(let items): state.items = items
///             case .failure(let error): state.error = "\(error)"
///             }
///             state.isLoading = false
///         }
///     }
/// }
/// ```
///
/// The hooks run on the main actor, and Swift infers that isolation for the methods that implement them; the
/// rest of the model stays usable from any thread. The hooks use `Self`, so a class conforms only if it is
/// `final`.
public protocol ScopedViewModel: AnyObject, Sendable {
    /// Called once, at the first activation, before ``didBecomeActive(_:)``.
    @MainActor func didLoad()

    /// Called once, at the first activation, before ``didBecomeActive(_:)``, with the dependencies where the
    /// model's behavior stands. The default calls ``didLoad()``; implement one of the two.
    ///
    /// ```swift
    /// func didLoad(_ dependencies: Dependencies) {
    ///     formatter = dependencies[DateFormatterKey.self]
    /// }
    /// ```
    ///
    /// - Parameter dependencies: Reads the values that scopes provide above the model's behavior.
    @MainActor func didLoad(_ dependencies: Dependencies)

    /// Called at every activation. Start the work of the activation here and give it to `activation`: it is
    /// cancelled when the activation ends, so closures may capture `self` strongly.
    ///
    /// - Parameter activation: The activation that begins; it ends when the behavior deactivates.
    @MainActor func didBecomeActive(_ activation: Activation<Self>)

    /// Called when the activation ends, after its work was cancelled.
    @MainActor func didBecomeInactive()
}

extension ScopedViewModel {
    /// Does nothing.
    @MainActor public func didLoad() {}

    /// Calls ``didLoad()``.
    ///
    /// - Parameter dependencies: Unused.
    @MainActor public func didLoad(_ dependencies: Dependencies) {
        didLoad()
    }

    /// Does nothing.
    ///
    /// - Parameter activation: The activation that begins.
    @MainActor public func didBecomeActive(_ activation: Activation<Self>) {}

    /// Does nothing.
    @MainActor public func didBecomeInactive() {}
}
