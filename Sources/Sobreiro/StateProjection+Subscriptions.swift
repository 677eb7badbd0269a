public import SobreiroPrimitives

extension StateProjection {
    /// Subscribes `view` to the projected value and renders it at once.
    ///
    /// `view` renders again only when the projected value changes. It is held weakly; subscribing it again
    /// keeps the one subscription.
    ///
    /// The value need not be a ``ViewState``: a view whose `State` is `String` renders `model.map(\.query)`.
    ///
    /// ```swift
    /// list.map(\.header).subscribe(view: headerView)
    /// ```
    ///
    /// - Parameter view: A renderer of the projected value.
    /// - Returns: A token that ends the subscription from any thread.
    @inlinable
    @discardableResult
    public func subscribe<V: StatefulView>(view: V) -> StateSubscription where V.State == Value {
        // The filter and the render in one closure, rather than `subscribe(_:distinct:receive:)`'s filter calling a
        // render closure: one indirect call less on every delivery.
        let lastValue = LastValue<Value>()
        return subscribeToEveryValue(view, nil) { target, value, notice in
            guard lastValue.admits(value, to: target, notice: notice) else { return }
            unsafeDowncast(target, to: V.self).render(state: value)
        }
    }

    /// Subscribes a main-actor `view` to the projected value and renders it at once.
    ///
    /// Delivery is as for a main-actor view of a whole state (see ``MainActorStatefulView``), and
    /// `view` renders only when the projected value changes.
    ///
    /// - Parameter view: A main-actor renderer of the projected value.
    /// - Returns: A token that ends the subscription from any thread.
    @inlinable
    @MainActor
    @discardableResult
    public func subscribe<V: MainActorStatefulView>(view: V) -> StateSubscription where V.State == Value {
        MainActorStateHop.connect(view, render: { unsafeDowncast($0, to: V.self).render(state: $1) }) { receive in
            subscribe(view, distinct: false, receive: receive)
        }
    }
}

extension ViewModel {
    /// Makes this model follow a projection of another model: `onChange` receives the projected value at
    /// once, then each value that differs from the last one.
    ///
    /// Each such subscription stands on its own, so one model can follow several parts of another. It ends
    /// with its token, with ``unsubscribe(from:)`` of the projected model, or with this model.
    ///
    /// ```swift
    /// subscribe(to: list.map(\.items.count)) { [weak self] count in
    ///     self?.write { $0.badge = count }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - projection: The projection to follow.
    ///   - onChange: Called with each new value, on the delivering thread.
    /// - Returns: A token that ends this subscription from any thread.
    @inlinable
    @discardableResult
    public final func subscribe<Value>(
        to projection: StateProjection<Value>,
        onChange: @escaping @Sendable (Value) -> Void
    ) -> StateSubscription {
        projection.subscribe(self, distinct: true) { _, value in onChange(value) }
    }

    /// Makes this model follow a projection of another model through one of its own methods, without a
    /// reference cycle.
    ///
    /// ```swift
    /// subscribe(to: list.map(\.selection), onChange: RouterViewModel.selectionDidChange)
    /// ```
    ///
    /// - Parameters:
    ///   - projection: The projection to follow.
    ///   - onChange: An instance method of this model's type.
    /// - Returns: A token that ends this subscription from any thread.
    @inlinable
    @discardableResult
    public final func subscribe<Value>(
        to projection: StateProjection<Value>,
        onChange: @escaping @Sendable (Self) -> (Value) -> Void
    ) -> StateSubscription {
        projection.subscribe(self, distinct: true) { target, value in
            onChange(unsafeDowncast(target, to: Self.self))(value)
        }
    }

    /// Makes this model follow a projection on the main actor, through a `@MainActor` closure.
    ///
    /// - Parameters:
    ///   - projection: The projection to follow.
    ///   - onChange: Called on the main actor with each new value.
    /// - Returns: A token that ends this subscription from any thread.
    @inlinable
    @MainActor
    @discardableResult
    public final func subscribe<Projection: StateProjection<Value>, Value>(
        to projection: Projection,
        onChange: @escaping @MainActor (Value) -> Void
    ) -> StateSubscription {
        MainActorStateHop.connect(self, render: { onChange($1) }) { receive in
            projection.subscribe(self, distinct: true, receive: receive)
        }
    }

    /// Makes this model follow a projection on the main actor, through one of its own `@MainActor` methods.
    ///
    /// - Parameters:
    ///   - projection: The projection to follow.
    ///   - onChange: A `@MainActor` instance method of this model's type.
    /// - Returns: A token that ends this subscription from any thread.
    @inlinable
    @MainActor
    @discardableResult
    public final func subscribe<Value>(
        to projection: StateProjection<Value>,
        onChange: @escaping @Sendable (Self) -> @MainActor (Value) -> Void
    ) -> StateSubscription {
        MainActorStateHop.connect(self, render: { onChange(unsafeDowncast($0, to: Self.self))($1) }) { receive in
            projection.subscribe(self, distinct: true, receive: receive)
        }
    }
}
