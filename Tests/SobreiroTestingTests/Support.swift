import ScopeKit
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

/// The text of a recorded issue's comments.
func text(of issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

/// How long these tests wait for a state a task writes: far more than it takes, because under a sanitizer, with
/// every suite running at once on a busy machine, the task may wait many seconds for a thread. Scaled as the other
/// targets' safety net is.
let patience: Duration = .seconds(60 * sanitizerSlowdown)

/// A model bound to a behavior of its own, hosted in a root of its own: the model is active while this is kept and
/// until `screen` detaches.
@MainActor
struct Hosted {
    let screen = Behavior()
    let root = RootScope()

    /// - Parameter clock: The clock the model's timed effects wait on; a new one by default. The root also gives
    ///   the tree the test kit's view of its effects, as a `TestHost` does.
    init(_ model: some ScopedViewModel, clock: TestClock = TestClock()) {
        root.provide(.testing(clock: clock))
        screen.bind(model)
        root.host(screen)
    }
}
