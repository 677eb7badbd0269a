import ScopeKit
public import Sobreiro

extension Activation {
    /// Runs `operation` for each new state that matches `predicate`, and writes its result back into the model.
    ///
    /// The effect follows the model from now until the activation ends. For each committed state that
    /// matches, including the current one, it starts `operation` off the main actor; when `operation` returns
    /// or throws, `reduce` receives the outcome inside a transaction of the model. A failure arrives as a
    /// `.failure` value for the model to show, never as a crash; a non-throwing operation has the failure
    /// type `Never`. With ``EffectStrategy/cancelOnNewState`` (the default), every new state cancels the
    /// running operation, whose result is then dropped, and a new matching state starts the next one; with
    /// ``EffectStrategy/continueOnNewState`` each operation runs to its end. When the activation ends, every operation is cancelled and none writes back after.
    ///
    /// ```swift
    /// activation.effect(when: { $0.phase == .loading }) { state in
    ///     try await api.items(page: state.page)
    /// } reduce: { state, result in
    ///     switch result {
    ///     case .success(let items): state.phase = .loaded(items)
    ///     case .failure(let error): state.phase = .failed("\(error)")
    ///     }
    /// }
    /// ```
    ///
    /// A state that matches again after an unrelated change starts a new run; to react to one part of the
    /// state only, use ``effect(onChangeOf:strategy:run:reduce:)``.
    ///
    /// - Parameters:
    ///   - predicate: Whether a state calls for the operation. It runs on the delivering thread; keep it cheap.
    ///   - strategy: What a new matching state does to a running operation.
    ///   - operation: The asynchronous work, given the matching state. It should honour cancellation.
    ///   - reduce: Writes the outcome into the state, inside a transaction.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @discardableResult
    public func effect<State, Output: Sendable, Failure: Error>(
        when predicate: @escaping @Sendable (State) -> Bool,
        strategy: EffectStrategy = .cancelOnNewState,
        run operation: @escaping @Sendable (State) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void
    ) -> Bool where Model: ViewModel<State> {
        // The model's own states, which it already deduplicates: no projection, no second comparison.
        startEffect(strategy: strategy, operation: operation, reduce: reduce) { runner, receive in
            self.model.subscription(of: runner, replacingLive: false) { target, state in
                receive(target, state, predicate(state))
            }
        }
    }

    /// Runs `operation` for the current value of a part of the state and again each time it changes, and writes
    /// its result back into the model.
    ///
    /// As ``effect(when:strategy:run:reduce:)``, but triggered by `value`: the current value at once, then each
    /// value that differs (`==`) from the previous one. Changes elsewhere in the state do not trigger it.
    ///
    /// ```swift
    /// activation.effect(onChangeOf: \.query) { query in
    ///     try await search(query)
    /// } reduce: { state, result in
    ///     state.results = (try? result.get()) ?? []
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - value: The part of the state that triggers the operation, often a key path.
    ///   - strategy: What a new value does to a running operation.
    ///   - operation: The asynchronous work, given the new value. It should honour cancellation.
    ///   - reduce: Writes the outcome into the state, inside a transaction.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @discardableResult
    public func effect<State, Value: Equatable & Sendable, Output: Sendable, Failure: Error>(
        onChangeOf value: @escaping @Sendable (State) -> Value,
        strategy: EffectStrategy = .cancelOnNewState,
        run operation: @escaping @Sendable (Value) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void
    ) -> Bool where Model: ViewModel<State> {
        let values = model.map(value)
        return startEffect(strategy: strategy, operation: operation, reduce: reduce) { runner, receive in
            values.subscribe(runner, distinct: true) { target, value in receive(target, value, true) }
        }
    }

    /// Starts a runner and lets `follow` subscribe it to its triggers: `follow` gets the runner and the function
    /// its subscription calls with each trigger and whether it matches.
    private func startEffect<State, Trigger: Sendable, Output: Sendable, Failure>(
        strategy: EffectStrategy,
        operation: @escaping @Sendable (Trigger) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        follow: (
            _ runner: AnyObject,
            _ receive: @escaping @Sendable (_ runner: AnyObject, Trigger, _ isMatch: Bool) -> Void
        ) -> StateSubscription
    ) -> Bool where Model: ViewModel<State> {
        guard isActive else { return false }
        let runner = EffectRunner(model: model, strategy: strategy, operation: operation, reduce: reduce)
        store(AnyCancellable { runner.end() })
        let subscription = follow(runner) { target, trigger, isMatch in
            unsafeDowncast(target, to: EffectRunner<State, Trigger, Output, Failure>.self)
                .receive(trigger, isMatch: isMatch)
        }
        runner.keep(subscription)
        return true
    }
}
