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
