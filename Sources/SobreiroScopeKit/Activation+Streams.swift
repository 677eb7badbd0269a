import ScopeKit
public import Sobreiro

extension Activation {
    /// Consumes `sequence` while this activation lasts, folding each element into the state in a transaction.
    ///
    /// The iteration runs off the main actor, one element at a time: `reduce` gets each element inside a
    /// transaction of the model, in order. When the activation ends, the iteration is cancelled, and no element
    /// is written after that, even one that had already arrived. A failure of the sequence reaches `reduce` once,
    /// as `.failure`, and ends the iteration; so does the sequence's own end.
    ///
    /// ``ScopedViewModel/didBecomeActive(_:)`` runs at each activation: make the sequence there, so that each
    /// activation consumes a sequence of its own (most sequences, `AsyncStream` among them, can be iterated once).
    ///
    /// ```swift
    /// func didBecomeActive(_ activation: Activation<ScoreViewModel>) {
    ///     activation.effect(consuming: socket.scores()) { state, event in
    ///         switch event {
    ///         case .success(let score): state.scores[score.team] = score.points
    ///         case .failure(let error): state.banner = "Live scores stopped: \(error)"
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// While the iteration waits for the next element, the effect counts as settled: `settleEffects(of:)` returns,
    /// and an element that arrives starts it again.
    ///
    /// - Parameters:
    ///   - sequence: The elements to consume, such as a socket's messages or another model's `states()`.
    ///   - reduce: Writes each element, or the failure that ends the sequence, into the state.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @discardableResult
    public func effect<State, Elements: AsyncSequence & Sendable>(
        consuming sequence: Elements,
        reduce: @escaping @Sendable (inout State, Result<Elements.Element, Elements.Failure>) -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State> {
        let origin = EffectOrigin(form: "effect(consuming:)", fileID: fileID, line: line)
        guard admitsWork(origin) else { return false }
        let loop = EffectLoop(model: model, origin: origin)
        store(loop as any ActivationEffect)
        loop.start { writer in
            var elements = sequence.makeAsyncIterator()
            do throws(Elements.Failure) {
                while let element = try await loop.waitIdle({ () async throws(Elements.Failure) in
                    try await elements.next(isolation: nil)
                }) {
                    guard writer.write({ reduce(&$0, .success(element)) }) else { return }
                }
            } catch {
                _ = writer.write { reduce(&$0, .failure(error)) }
            }
        }
        return true
    }

    /// Consumes `sequence`, which never fails, while this activation lasts, folding each element into the state in
    /// a transaction.
    ///
    /// As the form whose `reduce` receives a `Result`, for a sequence that cannot fail, such as an `AsyncStream`
    /// or another model's `states`.
    ///
    /// ```swift
    /// activation.effect(consuming: league.states()) { state, league in
    ///     state.leader = league.standings.first
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sequence: The elements to consume.
    ///   - reduce: Writes each element into the state.
    ///   - fileID: The caller's file ID, which names the effect in a test that it outlives; leave the default.
    ///   - line: The caller's line, which names the effect in a test that it outlives; leave the default.
    /// - Returns: `true` if the effect started; `false` if the activation has ended, in which case nothing runs.
    @discardableResult
    public func effect<State, Elements: AsyncSequence & Sendable>(
        consuming sequence: Elements,
        reduce: @escaping @Sendable (inout State, Elements.Element) -> Void,
        fileID: String = #fileID,
        line: UInt = #line
    ) -> Bool where Model: ViewModel<State>, Elements.Failure == Never {
        let fold = { @Sendable (state: inout State, element: Result<Elements.Element, Never>) in
            switch element {
            case .success(let element): reduce(&state, element)
            }
        }
        return effect(consuming: sequence, reduce: fold, fileID: fileID, line: line)
    }

    /// The model's states as an asynchronous sequence that finishes when this activation ends.
    ///
    /// Each iterator receives the current state, then every committed change, buffering only the newest for a
    /// slow consumer (see `StateSequence`). Every iterator finishes when the behavior deactivates, after handing
    /// out the state it holds; one made after that finishes at once.
    ///
    /// ```swift
    /// func didBecomeActive(_ activation: Activation<ClockViewModel>) {
    ///     let states = activation.states()
    ///     Task { @MainActor in
    ///         for await state in states { terminal.draw(state) }  // ends with the activation
    ///     }
    /// }
    /// ```
    ///
    /// The loop ends by itself when the activation ends, after the last state; storing its task in the
    /// activation as well would cancel it at that moment, possibly in the middle of handling that last state.
    public func states<State>() -> StateSequence<State> where Model: ViewModel<State> {
        let ending = ending
        return StateSequence { [weak model] buffer in
            // The buffer keeps its registration: a dropped iterator takes its action out of the signal.
            if let registration = ending.onFire({ [weak buffer] in buffer?.finish() }) {
                buffer.keepAlive(registration)
            }
            model?.connect(buffer) ?? buffer.finish()
        }
    }
}
