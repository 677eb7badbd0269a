extension ViewModel {
    /// Stops rendering into `view`, whether it renders this model's state or a projection of it. Does nothing if
    /// `view` is not subscribed.
    ///
    /// Once this returns `view` is never rendered again by this model; a render running on another thread
    /// has returned first, as for ``StateSubscription/cancel()``.
    ///
    /// - Parameter view: A view passed to `subscribe(view:)` before.
    @inlinable
    public final func unsubscribe<V: StatefulView>(view: V) where V.State == State {
        removeSubscriber(for: view)
    }
}
