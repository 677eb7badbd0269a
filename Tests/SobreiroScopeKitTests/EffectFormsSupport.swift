import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting

/// What the operations of an effect saw, in the order they saw it, with the test clock's time.
final class RunLog: Sendable {
    private let entries = Locked<[String]>([])

    var all: [String] { entries.withLock { $0 } }

    func record(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    /// Records `entry` with the time of `clock`, in whole milliseconds: "oak@300".
    func record(_ entry: String, at clock: TestClock) {
        let (seconds, attoseconds) = clock.now.offset.components
        record("\(entry)@\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)")
    }
}

/// The failure of an operation that tests make fail.
struct Offline: Error, Equatable, CustomStringConvertible {
    var attempt = 0
    var description: String { "offline (attempt \(attempt))" }
}

/// A model bound to a behavior hosted in a root of its own, kept for as long as this value is.
@MainActor
struct Host {
    let root = RootScope()
    let behavior = Behavior()

    init(_ model: some ScopedViewModel) {
        behavior.bind(model)
        root.host(behavior)
    }

    /// Ends the model's activation.
    func deactivate() {
        behavior.detach()
    }

    /// Starts a new activation of the model.
    func reactivate() {
        root.host(behavior)
    }
}
