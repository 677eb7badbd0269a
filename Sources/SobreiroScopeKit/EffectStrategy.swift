/// What an effect does with a running operation when a new trigger arrives.
public enum EffectStrategy: Sendable, Equatable {
    /// Cancels the running operation at every new state (or, for a key-path effect, every new value), and
    /// starts one for the new trigger if it matches; a cancelled operation's result is never written back. The
    /// default: the newest state decides.
    case cancelOnNewState
    /// Lets running operations finish and write back, and starts one for a new matching trigger alongside them.
    case continueOnNewState
}
