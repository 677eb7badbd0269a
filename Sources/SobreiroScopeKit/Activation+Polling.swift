import ScopeKit
public import Sobreiro

extension Activation {
    /// Runs `operation` now and again every `interval` while this activation lasts, or while `predicate` holds,
    /// and writes each result back into the model.
    ///
    /// Each poll is given the committed state, and its outcome reaches `reduce` inside a transaction, a failure as
    /// `.failure`; the next poll starts `interval` after the write-back, on `clock`. What the poller writes never
    /// cancels it: only the end of the activation does, or, with a `predicate`, a state where it no longer holds.
    /// The polling starts again, at once, at the next state where it holds. Once stopped, a poll writes nothing
    /// back, and the operation it runs is cancelled. A poll's result never lands in a state where `predicate` does
    /// not hold, even one that has committed and not reached the poller yet: it is dropped.
    ///
    /// ```swift
    /// activation.effect(every: .seconds(30), clock: clock, while: \.isLive) { state in
    ///     try await api.score(of: state.match)
    /// } reduce: { state, result in
    ///     if case .success(let score) = result { state.score = score }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The wait between the end of one poll and the start of the next.
    ///   - clock: The clock to wait on; a `TestClock` in tests.
    ///   - predicate: Whether a state calls for polling; `nil` polls for the whole activation. It runs on the
    ///     delivering thread, and on the poller's before and after each poll, never under the model's lock; keep
    ///     it cheap.
    ///   - operation: One poll, given the committed state. It should honour cancellation.
    ///   - reduce: Writes the outcome of each poll into the state, inside a transaction.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @discardableResult
    public func effect<State, Output: Sendable, Failure: Error, C: Clock>(
        every interval: Duration,
        clock: C = ContinuousClock(),
        while predicate: (@Sendable (State) -> Bool)? = nil,
        run operation: @escaping @Sendable (State) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State>, C.Duration == Duration {
        let origin = EffectOrigin(form: "effect(every:)", fileID: fileID, line: line)
        guard admitsWork(origin) else { return false }
        let loop = EffectLoop(model: model, origin: origin)
        let clock = EffectClock(clock)
        let freshness = EffectFreshness<State, Void>.holding(predicate)
        let poll: @Sendable (EffectLoop<State>.Writer) async -> Void = { [weak model] writer in
            while let state = model?.state {
                // A state where the predicate no longer holds may have committed before the subscription below
                // hears it and stops this run: such a state is not polled, and a poll's result never lands in one.
                if predicate?(state) ?? true {
                    let result: Result<Output, Failure>
                    do throws(Failure) {
                        result = .success(try await operation(state))
                    } catch {
                        result = .failure(error)
                    }
                    let outcome = writer.write(holding: freshness) { reduce(&$0, result) }
                    guard outcome != .stopped else { return }
                }
                do { try await clock.sleep(clock.now() + interval) } catch _ { return }
            }
        }
        guard let predicate else {
            store(loop as any ActivationEffect)
            loop.start(poll)
            return true
        }
        let isPolling = LastValue<Bool>()
        // Its own writes reach the poller as any state does: they stop it only if the predicate no longer holds.
        let subscription = model.subscription(of: loop, replacingLive: false) { target, state, _, notice in
            notice.willCall(target)
            let holds = predicate(state)
            guard isPolling.replace(with: holds) else { return }
            let loop = unsafeDowncast(target, to: EffectLoop<State>.self)
            if holds { loop.start(poll) } else { loop.stop() }
        }
        store(
            AnyCancellable {
                subscription.cancel()
                loop.end()
            }
        )
        return true
    }
}
