public import SobreiroPrimitives

extension StateSource {
    /// Subscribes `view` and renders the current value into it before returning.
    ///
    /// From then on `view` renders every committed change, in commit order, on the thread that delivers it; through a
    /// projection, only the changes of the projected value. The model holds `view` weakly: once `view` is deallocated
    /// it is never called again and stops counting in ``ViewModel/subscriberCount``, with no unsubscribe call
    /// needed. Subscribing a view that is already subscribed keeps its subscription (see
    /// ``StateSource``, "Subscribing twice") and returns its token once the view has rendered the current value: if
    /// another thread is rendering it, this waits for that render, so a render must not block on the thread that
    /// subscribes its view again. The same wait holds for a view unsubscribed while another thread still renders
    /// it; where that render waits for this thread (for the lock of a model whose transaction this thread runs),
    /// `subscribe` returns at once instead, and the render's thread renders the current value into `view` as soon as
    /// its render returns.
    ///
    /// Called from a render or handler of the same model, `subscribe` returns at once, and `view` renders right
    /// after the current call returns, so that a view is never called inside its own render.
    ///
    /// The value need not be a ``ViewState``: a view whose `State` is `String` renders `model.map(\.query)`.
    ///
    /// ```swift
    /// let printer = ListPrinter()
    /// viewModel.subscribe(view: printer)  // prints the current state now
    /// ```
    ///
    /// - Parameter view: The renderer to keep up to date.
    /// - Returns: A token that ends the subscription from any thread. Dropping it cancels nothing.
    @inlinable
    @inline(__always)
    @discardableResult
    public final func subscribe<V: StatefulView>(view: V) -> StateSubscription where V.State == Value {
        // The filter and the render in one closure, rather than `subscribe(_:key:receive:)` calling a render closure:
        // one indirect call less on every delivery. A model's closure captures nothing, so that subscribing to a
        // model allocates no context for it.
        guard let filter = repeatFilter() else {
            return addRecord(of: view, key: nil) { target, value, _, notice in
                notice.willCall(target)
                unsafeDowncast(target, to: V.self).render(state: value)
            }
        }
        return addRecord(of: view, key: nil) { target, value, _, notice in
            guard filter.replace(with: value) else { return }
            notice.willCall(target)
            unsafeDowncast(target, to: V.self).render(state: value)
        }
    }

    /// Subscribes a renderer isolated to the main actor and renders the current value into it at once.
    ///
    /// A write made on the main queue that commits a change renders `view` before it returns, even while another
    /// thread is delivering the model's states, unless `view` is rendering: a write made from its own `render`
    /// renders it right after that render returns, never inside it. (A write that commits nothing, being equal to
    /// the state or rolled back, brings nobody up to date: the state it found arrives as the other thread
    /// delivers it.) A write on any other thread schedules the render on the main actor; writes that land before
    /// that render runs are coalesced, so `view` renders only the latest of them and never ends on a stale state,
    /// even if the model is released meanwhile. The model holds `view` weakly, and subscribing it twice keeps one
    /// subscription (see ``StateSource``, "Subscribing twice").
    ///
    /// ```swift
    /// @MainActor func viewDidLoad() {
    ///     viewModel.subscribe(view: self)
    /// }
    /// ```
    ///
    /// - Parameter view: The main-actor renderer to keep up to date.
    /// - Returns: A token that ends the subscription from any thread; once the cancel returns, no render follows,
    ///   not even one already scheduled. A cancel on another thread waits for a render that the main actor has
    ///   begun.
    @inlinable
    @inline(__always)
    @MainActor
    @discardableResult
    public final func subscribe<V: MainActorStatefulView>(view: V) -> StateSubscription where V.State == Value {
        MainActorStateHop.connect(view, render: { unsafeDowncast($0, to: V.self).render(state: $1) }) { receive in
            subscribe(view, receive: receive)
        }
    }
}
