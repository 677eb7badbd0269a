extension ViewModel {
    /// Makes this model follow `model`: `onChange` receives its current state before this returns, then
    /// every committed change that differs from the previous state, in commit order.
    ///
    /// `model` holds this model weakly: once this model is deallocated the handler is dropped. The handler
    /// itself is held strongly, so a closure that captures `self` strongly keeps this model alive for as
    /// long as `model` lives. Prefer the overload that takes an unapplied method, which captures nothing.
    /// Subscribing again to the same `model` replaces the previous handler.
    ///
    /// ```swift
    /// subscribe(to: session) { [weak self] session in
    ///     self?.write { $0.userName = session.userName }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - model: The model to follow.
    ///   - onChange: Called with each new state of `model`, never while a lock is held.
    /// - Returns: A token that cancels this one subscription. Dropping it does not cancel anything.
    @discardableResult
    public final func subscribe<S>(to model: ViewModel<S>, onChange: @escaping (S) -> Void) -> StateSubscription {
        model.subscription(of: self) { _, state in onChange(state) }
    }

    /// Makes this model follow `model` through one of its own methods, without a reference cycle.
    ///
    /// Pass the method unapplied. `model` holds this model weakly and calls the method on it for the current
    /// state before this returns, then for every committed change that differs from the previous state.
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
    ///   - model: The model to follow.
    ///   - onChange: An instance method of this model's type, such as `Parent.childDidChange`.
    /// - Returns: A token that cancels this one subscription. Dropping it does not cancel anything.
    @discardableResult
    public final func subscribe<S>(
        to model: ViewModel<S>,
        onChange: @escaping (Self) -> (S) -> Void
    ) -> StateSubscription {
        model.subscription(of: self) { target, state in
            onChange(unsafeDowncast(target, to: Self.self))(state)
        }
    }

    /// Stops following `model`. Does nothing if this model does not follow it.
    ///
    /// - Parameter model: A model passed to `subscribe(to:onChange:)` before.
    public final func unsubscribe<S>(from model: ViewModel<S>) {
        model.removeSubscriber(for: self)
    }

    private func subscription(
        of follower: AnyObject,
        receive: @escaping (AnyObject, State) -> Void
    ) -> StateSubscription {
        let subscriber = Subscriber<State>(target: follower, receive: receive)
        add(subscriber, for: follower, replacingLive: true)
        return StateSubscription { [weak self] in self?.remove(subscriber) }
    }
}

/// Cancels one subscription of a view model to another.
///
/// Returned by ``ViewModel/subscribe(to:onChange:)-(_,(S)->Void)``. Keeping it is optional: dropping it
/// does not cancel the subscription, which lasts until ``cancel()``, ``ViewModel/unsubscribe(from:)``, or
/// the end of either model.
public final class StateSubscription: Sendable, Hashable {
    private let cancellation: @Sendable () -> Void

    init(cancellation: @escaping @Sendable () -> Void) {
        self.cancellation = cancellation
    }

    /// Ends the subscription. Calling it again, or after the subscription was replaced, does nothing.
    public func cancel() {
        cancellation()
    }

    /// Two values are equal when they are the same instance.
    public static func == (lhs: StateSubscription, rhs: StateSubscription) -> Bool {
        lhs === rhs
    }

    /// Hashes the identity of the instance.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
