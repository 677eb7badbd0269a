import Synchronization

/// A warning that debug builds print to standard error the first time a refusal happens.
///
/// Refusals that return a discardable value (a ``Behavior/attach(to:)`` that would break the tree, a model bound
/// in two places) are easy to miss: nothing traps and the caller may ignore the result. Debug builds say so once,
/// so the log is not flooded when the same mistake repeats; release builds print nothing and only return the
/// value. Each kind of refusal owns one warning, stored in a `static let` or a property.
package final class RuntimeWarning: Sendable {
    #if DEBUG
        private let hasWarned = Atomic<Bool>(false)
    #endif

    /// Creates a warning that has not been printed yet.
    package init() {}

    /// Prints `message` on its own line, prefixed with "Sobreiro: ", unless this warning was printed already.
    ///
    /// - Parameter message: What was refused, and how to fix it. Built only when it is printed.
    package func emit(_ message: @autoclosure () -> String) {
        #if DEBUG
            guard !hasWarned.exchange(true, ordering: .relaxed) else { return }
            StandardError.writeLine("Sobreiro: \(message())")
        #endif
    }
}
