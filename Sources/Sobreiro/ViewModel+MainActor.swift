public import SobreiroPrimitives

extension ViewModel {
    /// Subscribes a renderer isolated to the main actor and renders the current state into it at once.
    ///
    /// A write made on the main queue renders `view` before it returns, unless `view` is rendering: a write made
    /// from its own `render` renders it right after that render returns, never inside it. A write on any other
    /// thread schedules the render on the main actor; writes that land before that render runs are coalesced, so
    /// `view` renders only the latest of them and never ends on a stale state, even if the model is released
    /// meanwhile. The model holds `view` weakly.
    ///
    /// ```swift
    /// @MainActor func viewDidLoad() {
    ///     viewModel.subscribe(view: self)
    /// }
    /// ```
    ///
    /// - Parameter view: The main-actor renderer to keep up to date.
    /// - Returns: A token that ends the subscription from any thread; once it is cancelled on the main actor, no
    ///   render follows, not even one already scheduled.
    @inlinable
    @MainActor
    @discardableResult
    public final func subscribe<V: MainActorStatefulView>(view: V) -> StateSubscription where V.State == State {
        MainActorStateHop.connect(view, render: { unsafeDowncast($0, to: V.self).render(state: $1) }) { receive in
            subscription(of: view, replacingLive: false, receive: receive)
        }
    }

    /// Stops rendering into a main-actor `view`. Does nothing if `view` is not subscribed. A render already
    /// scheduled for it is dropped.
    ///
    /// - Parameter view: A view passed to `subscribe(view:)` before.
    @MainActor
    public final func unsubscribe<V: MainActorStatefulView>(view: V) where V.State == State {
        removeSubscriber(for: view)
    }
}
