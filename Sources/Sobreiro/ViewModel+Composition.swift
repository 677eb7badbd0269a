public import SobreiroPrimitives

extension ViewModel {
    /// Makes this model follow `source`, another model or a projection of one: `onChange` receives its current
    /// value before this returns, then every committed change, in commit order; from a projection, only the
    /// changes of the projected value.
    ///
    /// `onChange` runs on the thread that delivers the change, so it must be `@Sendable`: the compiler refuses
    /// a closure that touches state isolated to an actor. A `@MainActor` model follows on the main actor with
    /// ``subscribe(to:onChange:)-(Source,_)`` and a `@MainActor` closure instead.
    ///
    /// The model behind `source` holds this model weakly: once this model is deallocated the handler is dropped.
    /// The handler itself is held strongly, so a closure that captures `self` strongly keeps this model alive for
    /// as long as that model lives. Prefer the overload that takes an unapplied method, which captures nothing, or
    /// bind the subscription to a scope.
    ///
    /// Subscribing again to the same source keeps the live subscription and its handler (see
    /// ``StateSource``, "Subscribing twice"); a model follows several parts of another through several projections.
    ///
    /// ```swift
    /// subscribe(to: session) { [weak self] session in
    ///     self?.write { $0.userName = session.userName }
    /// }
    /// subscribe(to: list.map(\.items.count)) { [weak self] count in
    ///     self?.write { $0.badge = count }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - source: The model or projection to follow.
    ///   - onChange: Called with each new value of `source`, never while a lock is held.
    /// - Returns: A token that ends this subscription from any thread. Dropping it cancels nothing.
    @inlinable
    @inline(__always)
    @discardableResult
    public final func subscribe<S>(
        to source: StateSource<S>,
        onChange: @escaping @Sendable (S) -> Void
    ) -> StateSubscription {
        source.subscribe(self, key: source.key(forFollower: self)) { _, value in onChange(value) }
    }

    /// Makes this model follow `source`, another model or a projection of one, through one of its own methods,
    /// without a reference cycle.
    ///
    /// Pass the method unapplied. The model behind `source` holds this model weakly and calls the method on it for
    /// the current value before this returns, then for every committed change, on the thread that delivers it. If the method is isolated to the main actor, as every method of a
    /// `@MainActor` model is, Swift picks the main-actor overload of this method instead, and it runs there.
    ///
    /// ```swift
    /// final class FrontRunnerViewModel: ViewModel<FrontRunnerState>, @unchecked Sendable {
    ///     let mini = MiniUserViewModel()
    ///
    ///     init() {
    ///         super.init(initialState: FrontRunnerState())
    ///         subscribe(to: mini, onChange: FrontRunnerViewModel.miniDidChange)
    ///     }
    ///
    ///     func miniDidChange(_ mini: MiniUserState) {
    ///         write { $0.title = mini.name }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - source: The model or projection to follow.
    ///   - onChange: An instance method of this model's type, such as `Parent.childDidChange`.
    /// - Returns: A token that ends this subscription from any thread. Dropping it cancels nothing.
    @inlinable
    @inline(__always)
    @discardableResult
    public final func subscribe<S>(
        to source: StateSource<S>,
        onChange: @escaping @Sendable (Self) -> (S) -> Void
    ) -> StateSubscription {
        source.subscribe(self, key: source.key(forFollower: self)) { target, value in
            onChange(unsafeDowncast(target, to: Self.self))(value)
        }
    }

    /// Makes this model follow `source`, another model or a projection of one, on the main actor, through a
    /// `@MainActor` closure.
    ///
    /// `onChange` receives the current value before this returns. A change committed on the main queue reaches
    /// it before the write returns, even while another thread is delivering the model's states, unless `onChange` is
    /// running: a change it commits itself reaches it right after it returns, never inside it. A change committed
    /// on another thread reaches it asynchronously on the main actor, coalesced with the changes that land before
    /// it runs, so it always ends on the latest state and never receives an older one after a newer one.
    ///
    /// ```swift
    /// @MainActor
    /// final class TitleViewModel: ViewModel<TitleState>, @unchecked Sendable {
    ///     func follow(_ counter: CounterViewModel) {
    ///         subscribe(to: counter) { @MainActor [weak self] counter in
    ///             self?.update { TitleState(text: "\(counter.count)") }
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - source: The model or projection to follow.
    ///   - onChange: Called on the main actor with each new value of `source`.
    /// - Returns: A token that ends this subscription from any thread; once it is cancelled on the main actor, no
    ///   call follows, not even one already scheduled.
    @inlinable
    @inline(__always)
    @MainActor
    @discardableResult
    public final func subscribe<Source: StateSource<S>, S>(
        to source: Source,
        onChange: @escaping @MainActor (S) -> Void
    ) -> StateSubscription {
        MainActorStateHop.connect(self, render: { onChange($1) }) { receive in
            source.subscribe(self, key: source.key(forFollower: self), receive: receive)
        }
    }

    /// Makes this model follow `source`, another model or a projection of one, on the main actor, through one of
    /// its own `@MainActor` methods.
    ///
    /// This is the overload Swift picks when the unapplied method is isolated to the main actor, as every
    /// method of a `@MainActor` model is. Delivery is as for ``subscribe(to:onChange:)-(Source,_)``; the
    /// model behind `source` holds this model weakly, so nothing forms a cycle.
    ///
    /// ```swift
    /// @MainActor
    /// final class TitleViewModel: ViewModel<TitleState>, @unchecked Sendable {
    ///     init(counter: CounterViewModel) {
    ///         super.init(initialState: TitleState())
    ///         subscribe(to: counter, onChange: TitleViewModel.counterDidChange)
    ///     }
    ///
    ///     func counterDidChange(_ counter: CounterState) {
    ///         update { TitleState(text: "\(counter.count)") }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - source: The model or projection to follow.
    ///   - onChange: A `@MainActor` instance method of this model's type.
    /// - Returns: A token that ends this subscription from any thread; once it is cancelled on the main actor, no
    ///   call follows, not even one already scheduled.
    @inlinable
    @inline(__always)
    @MainActor
    @discardableResult
    public final func subscribe<S>(
        to source: StateSource<S>,
        onChange: @escaping @Sendable (Self) -> @MainActor (S) -> Void
    ) -> StateSubscription {
        MainActorStateHop.connect(self, render: { onChange(unsafeDowncast($0, to: Self.self))($1) }) { receive in
            source.subscribe(self, key: source.key(forFollower: self), receive: receive)
        }
    }

    /// Stops following `model`, and every projection of it that this model follows. Does nothing if this
    /// model does not follow it. A handler call running on another thread has returned when this returns, as
    /// for ``StateSubscription/cancel()``.
    ///
    /// - Parameter model: A model passed to `subscribe(to:onChange:)` before.
    public final func unsubscribe<S>(from model: ViewModel<S>) {
        model.removeAllSubscriptions(of: self)
    }
}
