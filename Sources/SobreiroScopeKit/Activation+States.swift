public import Sobreiro

extension Activation {
    /// The model's states as an asynchronous sequence that finishes when this activation ends.
    ///
    /// Each iterator receives the current state, then every committed change, buffering only the newest for a
    /// slow consumer (see `StateSequence`). Every iterator finishes when the behavior deactivates, after handing
    /// out the state it holds; one made after that finishes at once.
    ///
    /// ```swift
    /// func didBecomeActive(_ activation: Activation<ClockViewModel>) {
    ///     Task { @MainActor in
    ///         for await state in activation.states() { terminal.draw(state) }
    ///     }.store(in: activation)
    /// }
    /// ```
    public func states<State>() -> StateSequence<State> where Model: ViewModel<State> {
        let ending = ending
        return StateSequence { [weak model] buffer in
            ending.onFire { [weak buffer] in buffer?.finish() }
            model?.connect(buffer) ?? buffer.finish()
        }
    }
}
