import Sobreiro

/// When the result of an effect's run may still be written into the model, and the one write that checks it:
/// shared by the one-shot write-backs and the long runs' writes of ``EffectRunner``.
///
/// The decision ends in the write transaction, where it and the commit are one atomic step; but only versions are
/// compared there. The effect's own code (a predicate, the value closure, `Value ==`) runs before, outside the
/// model's lock, on a copy of the state, and the transaction checks that no change committed since that copy.
enum EffectFreshness<State: ViewState, Trigger: Sendable>: Sendable {
    /// For a run whose result is written whatever happened since it started: no check.
    case anyState
    /// For a state that matches a predicate: current while no change has committed since the state the run was
    /// given. The run is stamped with the version the model delivered that state at, so no state is compared:
    /// a state's `==` may be costly, or not even reflexive (a `Double` field that is NaN).
    case unchangedState
    /// For a value of the state: current while the committed state holds the value the run was given, as `holds`
    /// tells. Other changes of the state leave the run current. The effect's own subscription replaces the run
    /// once it hears of a newer value, so a value that changes and changes back before then counts as unchanged.
    case unchangedValue(holds: @Sendable (State, Trigger) -> Bool)

    /// What became of a write.
    enum Outcome: Equatable {
        case written
        /// The writer's own check, under the model's lock, refused it: nothing was written.
        case refused
        /// The committed state does not hold the run's value: nothing was written. `version` is the version of the
        /// copy that was checked.
        case notHeld(version: UInt64)
        /// A change committed since the state the run was given: nothing was written, nor ever will be.
        case movedOn
    }

    /// Writes with `apply`, inside a transaction of `model`, if the committed state is still current for a run
    /// given `trigger` at version `stamp`, and `admit` lets it.
    ///
    /// Whether the state is current is decided in two steps, so that the effect's code runs outside the model's
    /// lock: first on a copy of the committed state, which gives the version the write requires; then, in the
    /// transaction, by comparing that version with the committed one. If a value's change committed in between,
    /// the first step is taken again on the newer state.
    ///
    /// - Parameters:
    ///   - admit: The writer's own check, called in the transaction, under the model's lock, once the state is
    ///     found current; it may claim the write. It must not run user code.
    ///   - apply: Writes into the state, once admitted.
    func write(
        into model: ViewModel<State>,
        for trigger: Trigger,
        stamp: UInt64,
        admit: () -> Bool,
        _ apply: (inout State) -> Void
    ) -> Outcome {
        while true {
            let required: UInt64?
            switch self {
            case .anyState:
                required = nil
            case .unchangedState:
                required = stamp
            case .unchangedValue(let holds):
                let committed = model.versionedState
                guard holds(committed.state, trigger) else { return .notHeld(version: committed.version) }
                required = committed.version
            }
            do throws(Rollback) {
                try model.write { state throws(Rollback) in
                    if let required, model.committedVersion != required {
                        throw isRecheckedAfterChanges ? .stateChanged : .movedOn
                    }
                    guard admit() else { throw .refused }
                    apply(&state.whole)
                }
                return .written
            } catch {
                switch error {
                case .stateChanged: continue
                case .movedOn: return .movedOn
                case .refused: return .refused
                }
            }
        }
    }

    /// Why a write transaction commits nothing. It rolls back rather than leave the state as it was, which
    /// commits a change when the state's `==` is not reflexive (a NaN field), and would then reach the effects.
    private enum Rollback: Error {
        case refused
        case movedOn
        /// A change committed since the state was checked: check it again.
        case stateChanged
    }

    /// Whether a version found committed in the write transaction, other than the required one, may still let
    /// the run write once checked again: only a value may be unchanged across other changes.
    private var isRecheckedAfterChanges: Bool {
        switch self {
        case .anyState, .unchangedState: false
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

extension EffectFreshness where Trigger == Void {
    /// For a long-lived effect's writes: current while the committed state holds `predicate`, or always if it is
    /// `nil`.
    static func holding(_ predicate: (@Sendable (State) -> Bool)?) -> Self {
        guard let predicate else { return .anyState }
        return .unchangedValue { state, _ in predicate(state) }
    }
}
