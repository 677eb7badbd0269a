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

    /// The version that the committed state must still have when the result of a run is written back, or `nil`
    /// if the run is out of date already.
    ///
    /// - Parameters:
    ///   - stamp: The version of the state that the run was started for.
    /// - Returns: For ``unchangedState``, `stamp`. For ``unchangedValue(holds:)``, the version of a copy of the
    ///   committed state that holds the run's value, read outside the model's lock; should another change commit
    ///   before the write-back transaction, that copy is out of date and the caller asks again.
    func requiredVersion(of model: ViewModel<State>, for trigger: Trigger, stamp: UInt64) -> UInt64? {
        switch self {
        case .unchangedState:
            return stamp
        case .unchangedValue(let holds):
            let committed = model.versionedState
            return holds(committed.state, trigger) ? committed.version : nil
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
