import Sobreiro

/// How an effect under ``EffectStrategy/cancelOnNewState`` tells that the state has not moved on from the trigger
/// of a run, so that the run's result may be written back.
///
/// The decision ends in the write-back transaction, where it and the commit are one atomic step; but only
/// versions are compared there. The effect's own code (the value closure, `Value ==`) runs before, outside the
/// model's lock, on a copy of the state, and the transaction checks that no change committed since that copy.
enum EffectFreshness<State: ViewState, Trigger: Sendable>: Sendable {
    /// For a state that matches a predicate: current while no change has committed since the state the run was
    /// given. The run is stamped with the version the model delivered that state at, so no state is compared:
    /// a state's `==` may be costly, or not even reflexive (a `Double` field that is NaN).
    case unchangedState
    /// For a value of the state: current while the committed state holds the value the run was given, as `holds`
    /// tells. Other changes of the state leave the run current. The effect's own subscription replaces the run
    /// once it hears of a newer value, so a value that changes and changes back before then counts as unchanged.
    case unchangedValue(holds: @Sendable (State, Trigger) -> Bool)

    /// What a run's write-back needs, judged on a copy of the committed state read outside the model's lock.
    enum Verdict: Equatable {
        /// The committed state must still have this version when the result is written back; should another
        /// change commit before the write-back transaction, the copy is out of date and the caller asks again.
        case current(version: UInt64)
        /// The committed state holds another value, which has not reached the effect yet: wait for the next
        /// state the effect hears.
        case waitForNextState
        /// The run can never write back: its value does not hold even in the very state it was given, since it
        /// is not equal to itself (a NaN).
        case never
    }

    /// Whether the result of a run may be written back, and under which version.
    ///
    /// - Parameters:
    ///   - stamp: The version of the state that the run was started for.
    /// - Returns: For ``unchangedState``, `stamp`. For ``unchangedValue(holds:)``, the version of a copy of the
    ///   committed state that holds the run's value, or what to do when it does not hold.
    func verdict(of model: ViewModel<State>, for trigger: Trigger, stamp: UInt64) -> Verdict {
        switch self {
        case .unchangedState:
            return .current(version: stamp)
        case .unchangedValue(let holds):
            let committed = model.versionedState
            if holds(committed.state, trigger) { return .current(version: committed.version) }
            // Waiting for a state that holds the value would never end, and writing it back would start another
            // run at once, since the value would count as changed again.
            return committed.version == stamp ? .never : .waitForNextState
        }
    }

    /// Whether a version found committed in the write-back transaction, other than the required one, may still
    /// let the run write back once checked again: only a value may be unchanged across other changes.
    var isRecheckedAfterChanges: Bool {
        switch self {
        case .unchangedState: false
        case .unchangedValue: true
        }
    }
}

extension EffectFreshness where Trigger: Equatable {
    /// For a value of the state, derived by `value`: see ``unchangedValue(holds:)``.
    static func unchangedValue(of value: @escaping @Sendable (State) -> Trigger) -> Self {
        .unchangedValue { state, trigger in value(state) == trigger }
    }
}
