public import ScopeKit

/// A view model that lives in a scope tree, bound to a `Behavior` with `bind(_:)`.
///
/// The behavior keeps the model alive and tells it about its lifecycle, on the main actor: ``didLoad()`` once,
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
    /// Called once, at the first activation, before ``didBecomeActive(_:)``: the place for what holds for the
    /// model's whole life, such as a value built from a dependency that does not change.
    @MainActor func didLoad()

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

    /// Does nothing.
    ///
    /// - Parameter activation: The activation that begins.
    @MainActor public func didBecomeActive(_ activation: Activation<Self>) {}

    /// Does nothing.
    @MainActor public func didBecomeInactive() {}
}

extension ScopedViewModel {
    /// The value of `key` where the model's behavior stands in its tree: the one way a bound model reads its
    /// services, clocks and configuration, in its hooks and its methods alike.
    ///
    /// ```swift
    /// func didBecomeActive(_ activation: Activation<ListViewModel>) {
    ///     let api = dependency(APIClientKey.self)
    ///     activation.effect(.when(\.isLoading)) { _ in try await api.items() } reduce: { state, result in
    ///         state.items = (try? result.get()) ?? []
    ///         state.isLoading = false
    ///     }
    /// }
    ///
    /// func deleteTapped(_ item: Item.ID) {
    ///     let api = dependency(APIClientKey.self)
    ///     write { $0.items.removeAll { $0.id == item } }
    ///     Task { try await api.delete(item) }
    /// }
    /// ```
    ///
    /// It reads on the main actor, where the tree lives: a method of a `@MainActor` model reads directly, and
    /// other code awaits the read. An effect's operation captures what was read when the effect was declared.
    /// Each read resolves again, so after the behavior moves under another scope the model reads that scope's
    /// values. In a test's tree, a key that no scope provides reads its `testValue`.
    ///
    /// Reading before the model is bound, or once its behavior is released, traps, naming the fix; so does reading
    /// from a behavior that is not in a tree yet.
    ///
    /// - Parameter key: The key of the value.
    /// - Returns: The value that applies to the model's behavior.
    @MainActor public func dependency<Key: DependencyKey>(_ key: Key.Type) -> Key.Value {
        guard let behavior = BindingRegistry.owners[ObjectIdentifier(self)]?.behavior else {
            fatalError(
                "\(Self.self) read \(Key.self) while it is not bound to a behavior: bind it with behavior.bind(model), "
                    + "or host it with TestHost, and read dependencies from didLoad() on, not in its initializer."
            )
        }
        return behavior.dependency(key)
    }
}
