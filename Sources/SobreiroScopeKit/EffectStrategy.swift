/// What an effect does with a running operation when a new trigger arrives.
public enum EffectStrategy: Sendable, Equatable {
    /// Cancels the running operation at every new state (or, for a key-path effect, every new value), and
    /// starts one for the new trigger if it matches; a cancelled operation's result is never written back. The
    /// default: the newest state decides.
    ///
    /// A result is also dropped when a newer state (or value) has committed but has not reached the effect yet:
    /// the transaction that would write it back checks what committed since the run started.
    case cancelOnNewState
    /// Lets running operations finish and write back, and starts one for a new matching trigger alongside them.
    ///
    /// Runs are independent: none is dropped because of a later state. An effect starts runs for the triggers it
    /// receives; under concurrent writes, intermediate states may be coalesced before they reach it.
    case continueOnNewState
}
