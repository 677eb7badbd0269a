import ScopeKit
import SobreiroScopeKit
import Testing

/// The text of a recorded issue's comments.
func text(of issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

/// How long these tests wait for a state a task writes: far more than it takes, because under ThreadSanitizer,
/// with every suite running at once, the task may wait seconds for a thread.
let patience: Duration = .seconds(30)

/// A model bound to a behavior of its own, hosted in a root of its own: the model is active while this is kept and
/// until `screen` detaches.
@MainActor
struct Hosted {
    let screen = Behavior()
    let root = RootScope()

    init(_ model: some ScopedViewModel) {
        screen.bind(model)
        root.host(screen)
    }
}
