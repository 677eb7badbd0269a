public import Sobreiro

extension Activation {
    /// Runs `operation` for states that match `predicate`, at the times `timing` sets, and writes its result back
    /// into the model.
    ///
    /// As ``effect(when:strategy:run:reduce:fileID:line:)``, whose guarantees it keeps: nothing is written back after the
    /// activation ends or after a newer state cancelled the run, and a failure reaches `reduce` as a value. The
    /// timing decides which matching states start a run and when; see ``EffectTiming``.
    ///
    /// ```swift
    /// activation.effect(when: \.isLoading, timing: .retrying(upTo: 3, initialDelay: .seconds(1))) { _ in
    ///     try await api.items()
    /// } reduce: { state, result in
    ///     state.isLoading = false
    ///     state.items = (try? result.get()) ?? []
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - predicate: Whether a state calls for the operation. It runs on the delivering thread; keep it cheap.
    ///   - timing: When runs start, and whether they retry failures.
    ///   - strategy: What a state that starts a run does to a running operation.
    ///   - operation: The asynchronous work, given the matching state. It should honour cancellation.
    ///   - reduce: Writes the outcome into the state, inside a transaction.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @inlinable
    @discardableResult
    public func effect<State, Output: Sendable, Failure: Error>(
        when predicate: @escaping @Sendable (State) -> Bool,
        timing: EffectTiming,
        strategy: EffectStrategy = .cancelOnNewState,
        run operation: @escaping @Sendable (State) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State> {
        startEffect(
            when: predicate,
            timing: timing,
            strategy: strategy,
            run: operation,
            reduce: reduce,
            fileID: fileID,
            line: line,
            subscribe: ViewModel<State>.effectSubscribe
        )
    }

    /// ``effect(when:timing:strategy:run:reduce:fileID:line:)``, whose subscription `subscribe` makes.
    @usableFromInline
    func startEffect<State, Output: Sendable, Failure: Error>(
        when predicate: @escaping @Sendable (State) -> Bool,
        timing: EffectTiming,
        strategy: EffectStrategy,
        run operation: @escaping @Sendable (State) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String,
        line: UInt,
        subscribe: EffectSubscribe<State>
    ) -> Bool where Model: ViewModel<State> {
        let schedule = EffectSchedule(timing)
        return startEffect(
            origin: EffectOrigin(form: "effect(when:timing:)", fileID: fileID, line: line),
            strategy: strategy,
            freshness: .unchangedState,
            operation: schedule.timed(operation),
            reduce: EffectSchedule.reducing(reduce)
        ) { runner in
            self.follow(
                runner, matching: predicate, admission: ScheduledAdmission(schedule: schedule), subscribe: subscribe)
        }
    }

    /// Runs `operation` for the current value of a part of the state and for each change of it, at the times
    /// `timing` sets, and writes its result back into the model.
    ///
    /// As ``effect(onChangeOf:strategy:run:reduce:fileID:line:)``, whose guarantees it keeps: nothing is written back after
    /// the activation ends or once the value has moved on, and a failure reaches `reduce` as a value. The timing
    /// decides which values start a run and when; see ``EffectTiming``. The natural home of a debounce: a search
    /// runs once the query has been quiet for a while, and each keystroke cancels the search that waits.
    ///
    /// ```swift
    /// activation.effect(onChangeOf: \.query, timing: .debounced(for: .milliseconds(300), clock: clock)) { query in
    ///     try await api.search(query)
    /// } reduce: { state, result in
    ///     state.results = (try? result.get()) ?? []
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - value: The part of the state that triggers the operation, often a key path; see
    ///     ``effect(onChangeOf:strategy:run:reduce:fileID:line:)`` for where it runs.
    ///   - timing: When runs start, and whether they retry failures.
    ///   - strategy: What a value that starts a run does to a running operation.
    ///   - operation: The asynchronous work, given the new value. It should honour cancellation.
    ///   - reduce: Writes the outcome into the state, inside a transaction.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @inlinable
    @discardableResult
    public func effect<State, Value: Equatable & Sendable, Output: Sendable, Failure: Error>(
        onChangeOf value: @escaping @Sendable (State) -> Value,
        timing: EffectTiming,
        strategy: EffectStrategy = .cancelOnNewState,
        run operation: @escaping @Sendable (Value) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State> {
        startEffect(
            onChangeOf: value,
            timing: timing,
            strategy: strategy,
            run: operation,
            reduce: reduce,
            fileID: fileID,
            line: line,
            subscribe: ViewModel<State>.effectSubscribe
        )
    }

    /// ``effect(onChangeOf:timing:strategy:run:reduce:fileID:line:)``, whose subscription `subscribe` makes.
    @usableFromInline
    func startEffect<State, Value: Equatable & Sendable, Output: Sendable, Failure: Error>(
        onChangeOf value: @escaping @Sendable (State) -> Value,
        timing: EffectTiming,
        strategy: EffectStrategy,
        run operation: @escaping @Sendable (Value) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String,
        line: UInt,
        subscribe: EffectSubscribe<State>
    ) -> Bool where Model: ViewModel<State> {
        let schedule = EffectSchedule(timing)
        let freshness = EffectFreshness<State, TimedTrigger<Value>>.unchangedValue { state, trigger in
            value(state) == trigger.value
        }
        return startEffect(
            origin: EffectOrigin(form: "effect(onChangeOf:timing:)", fileID: fileID, line: line),
            strategy: strategy,
            freshness: freshness,
            operation: schedule.timed(operation),
            reduce: EffectSchedule.reducing(reduce)
        ) { runner in
            self.follow(
                runner, changesOf: value, admission: ScheduledAdmission(schedule: schedule), subscribe: subscribe)
        }
    }
}
