import Sobreiro

/// How an effect under ``EffectStrategy/cancelOnNewState`` tells, inside the transaction that would write a run's
/// result back, that the state has not moved on from the trigger of the run.
///
/// A run is stamped on the delivering thread as it starts, and checked in its write-back transaction, where the
/// check and the commit are one atomic step.
struct EffectFreshness<State: ViewState, Trigger: Sendable>: Sendable {
    /// The stamp of a run that starts for a trigger, or `nil` if the trigger is already out of date.
    let stamp: @Sendable (ViewModel<State>, Trigger) -> UInt64?
    /// Whether a run with this stamp and trigger may write into `state`, the committed state whose version is
    /// given.
    let isCurrent: @Sendable (_ stamp: UInt64, _ trigger: Trigger, _ state: State, _ version: UInt64) -> Bool
}

extension EffectFreshness where Trigger == State {
    /// For a state that matches a predicate: current while no change has committed since the run started. A run
    /// starts only if the state it was given is still the committed one, and is stamped with its version.
    static var unchangedState: Self {
        Self(
            stamp: { model, trigger in
                let committed = model.versionedState
                return committed.state == trigger ? committed.version : nil
            },
            isCurrent: { stamp, _, _, version in stamp == version }
        )
    }
}

extension EffectFreshness where Trigger: Equatable {
    /// For a value of the state: current while the state being written holds the value the run was given. Other
    /// changes of the state leave the run current. The effect's own subscription replaces the run once it hears
    /// of a newer value, so a value that changes and changes back before then counts as unchanged.
    static func unchangedValue(of value: @escaping @Sendable (State) -> Trigger) -> Self {
        Self(stamp: { _, _ in 0 }, isCurrent: { _, trigger, state, _ in value(state) == trigger })
    }
}
