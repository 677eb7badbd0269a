extension ViewModel {
    /// Subscribes `view` and renders the current state into it before returning.
    ///
    /// From then on `view` renders every committed change that differs from the previous state, in commit
    /// order, on the thread that delivers it. The model holds `view` weakly: once `view` is deallocated it is
    /// never called again and stops counting in ``subscriberCount``, with no unsubscribe call needed.
    /// Subscribing a view that is already subscribed keeps the one subscription and returns its token, once the
    /// view has rendered the current state: if another thread is rendering it, this waits for that render, so a
    /// render must not block on the thread that subscribes its view again.
    ///
    /// Called from a render or handler of this model, `subscribe` returns at once, and `view` renders right after
    /// the current call returns, so that a view is never called inside its own render.
    ///
    /// ```swift
    /// let printer = ListPrinter()
    /// viewModel.subscribe(view: printer)  // prints the current state now
    /// ```
    ///
    /// - Parameter view: The renderer to keep up to date.
    /// - Returns: A token that ends the subscription from any thread. Dropping it cancels nothing.
    @inlinable
    @discardableResult
    public final func subscribe<V: StatefulView>(view: V) -> StateSubscription where V.State == State {
        subscription(of: view, replacingLive: false) { target, state, _, notice in
            notice.willCall(target)
            unsafeDowncast(target, to: V.self).render(state: state)
        }
    }

    /// Stops rendering into `view`. Does nothing if `view` is not subscribed.
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
