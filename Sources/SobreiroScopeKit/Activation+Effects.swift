import ScopeKit
public import Sobreiro

extension Activation {
    /// Runs `operation` for each new state that matches `predicate`, and writes its result back into the model.
    ///
    /// The effect follows the model from now until the activation ends, as a subscriber does. For each state
    /// it receives that matches, including the current one, it starts `operation` off the main actor; when
    /// `operation` returns or throws, `reduce` receives the outcome inside a transaction of the model. A failure
    /// arrives as a `.failure` value for the model to show, never as a crash; a non-throwing operation has the
    /// failure type `Never`. When the activation ends, every operation is cancelled and none writes back after.
    ///
    /// With ``EffectStrategy/cancelOnNewState`` (the default), a result is written back only if no change has
    /// committed since the state the run was given. The write-back transaction checks it, so the check and the
    /// commit are one step: a result never lands in a state that has moved on, even while a slow subscriber
    /// holds up the delivery of the newer state. Each new state the effect receives also cancels the running
    /// operation, and a new matching state starts the next one. With ``EffectStrategy/continueOnNewState``,
    /// each operation runs to its end and writes back, whatever happened since.
    ///
    /// Like any subscriber, the effect may not receive every committed state: under concurrent writes or
    /// re-entrancy, intermediate states are coalesced (see "Threading and re-entrancy" in the Sobreiro documentation). A state that matched
    /// only until the next write may start no run, under either strategy.
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
    /// state only, use ``effect(onChangeOf:strategy:run:reduce:fileID:line:)``.
    ///
    /// - Parameters:
    ///   - predicate: Whether a state calls for the operation. It runs on the delivering thread; keep it cheap.
    ///   - strategy: What a new matching state does to a running operation.
    ///   - operation: The asynchronous work, given the matching state. It should honour cancellation.
    ///   - reduce: Writes the outcome into the state, inside a transaction.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @inlinable
    @discardableResult
    public func effect<State, Output: Sendable, Failure: Error>(
        when predicate: @escaping @Sendable (State) -> Bool,
        strategy: EffectStrategy = .cancelOnNewState,
        run operation: @escaping @Sendable (State) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State> {
        startEffect(
            when: predicate,
            strategy: strategy,
            run: operation,
            reduce: reduce,
            fileID: fileID,
            line: line,
            subscribe: ViewModel<State>.effectSubscribe
        )
    }

    /// ``effect(when:strategy:run:reduce:fileID:line:)``, whose subscription `subscribe` makes.
    @usableFromInline
    func startEffect<State, Output: Sendable, Failure: Error>(
        when predicate: @escaping @Sendable (State) -> Bool,
        strategy: EffectStrategy,
        run operation: @escaping @Sendable (State) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String,
        line: UInt,
        subscribe: EffectSubscribe<State>
    ) -> Bool where Model: ViewModel<State> {
        let origin = EffectOrigin(form: "effect(when:)", fileID: fileID, line: line)
        return startEffect(
            origin: origin,
            strategy: strategy,
            freshness: .unchangedState,
            operation: operation,
            reduce: reduce
        ) { runner in
            self.follow(runner, matching: predicate, admission: ImmediateAdmission(), subscribe: subscribe)
        }
    }

    /// Runs `operation` for the current value of a part of the state and again each time it changes, and writes
    /// its result back into the model.
    ///
    /// As ``effect(when:strategy:run:reduce:fileID:line:)``, but triggered by `value`: the current value at once, then each
    /// value that differs (`==`) from the previous one the effect received. Changes elsewhere in the state do
    /// not trigger it, and do not drop a result.
    ///
    /// With ``EffectStrategy/cancelOnNewState`` (the default), a result is written back only if the state being
    /// written still holds the value the run was given, and no newer value has reached the effect since. The
    /// value is checked on the committed state just before the write-back transaction, outside the model's lock,
    /// and the transaction writes only if no change committed in between; otherwise the value is checked again.
    /// A run that finds another value waits: the effect hearing of that value ends it, and the effect hearing a
    /// state with the run's value again lets it write back. A value that is not equal to itself (a NaN) never
    /// holds, so its run's result is dropped.
    /// A value that changes and changes back before the effect hears of the change counts as unchanged: the run
    /// for the first occurrence may write into the second, and if the effect then hears of the change, the run
    /// that the change starts writes back too.
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
    ///   - value: The part of the state that triggers the operation, often a key path. It runs on the delivering
    ///     thread, and under `cancelOnNewState` also on the thread of a run that ends, on the committed state,
    ///     before its result is written back; keep it cheap. It never runs under the model's lock.
    ///   - strategy: What a new value does to a running operation.
    ///   - operation: The asynchronous work, given the new value. It should honour cancellation.
    ///   - reduce: Writes the outcome into the state, inside a transaction.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @inlinable
    @discardableResult
    public func effect<State, Value: Equatable & Sendable, Output: Sendable, Failure: Error>(
        onChangeOf value: @escaping @Sendable (State) -> Value,
        strategy: EffectStrategy = .cancelOnNewState,
        run operation: @escaping @Sendable (Value) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State> {
        startEffect(
            onChangeOf: value,
            strategy: strategy,
            run: operation,
            reduce: reduce,
            fileID: fileID,
            line: line,
            subscribe: ViewModel<State>.effectSubscribe
        )
    }

    /// ``effect(onChangeOf:strategy:run:reduce:fileID:line:)``, whose subscription `subscribe` makes.
    @usableFromInline
    func startEffect<State, Value: Equatable & Sendable, Output: Sendable, Failure: Error>(
        onChangeOf value: @escaping @Sendable (State) -> Value,
        strategy: EffectStrategy,
        run operation: @escaping @Sendable (Value) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String,
        line: UInt,
        subscribe: EffectSubscribe<State>
    ) -> Bool where Model: ViewModel<State> {
        let origin = EffectOrigin(form: "effect(onChangeOf:)", fileID: fileID, line: line)
        let freshness = EffectFreshness<State, Value>.unchangedValue(of: value)
        return startEffect(
            origin: origin,
            strategy: strategy,
            freshness: freshness,
            operation: operation,
            reduce: reduce
        ) { runner in
            self.follow(runner, changesOf: value, admission: ImmediateAdmission(), subscribe: subscribe)
        }
    }
}
