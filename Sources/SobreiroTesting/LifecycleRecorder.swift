public import ScopeKit

/// Records the lifecycle of one behavior, so that a test can assert the transitions a change of the tree caused.
///
/// ```swift
/// let lifecycle = LifecycleRecorder(of: screen)
/// root.host(screen)
/// screen.detach()
/// lifecycle.expect(.attached, .activated, .deactivated, .detached)
/// ```
///
/// Like ``StateRecorder``, it is exhaustive once asserted: transitions that happen after the last
/// ``expect(_:fileID:filePath:line:column:)`` fail the test when the recorder is released. The recorder lives as
/// long as the behavior it watches, or until the test drops it.
@MainActor
public final class LifecycleRecorder {
    /// One transition of a behavior.
    public enum Event: Sendable, Equatable, CustomStringConvertible {
        /// The behavior joined a host (after `willAttach()`).
        case attached
        /// The behavior activated (after `willActivate(cancellables:)`).
        case activated
        /// The behavior deactivated (its cancellables were cancelled; before `didDeactivate()`).
        case deactivated
        /// The behavior left its host (after `didDetach()`).
        case detached

        /// The name of the transition.
        public var description: String {
            switch self {
            case .attached: "attached"
            case .activated: "activated"
            case .deactivated: "deactivated"
            case .detached: "detached"
            }
        }
    }

    private let log: Log

    /// Starts recording the transitions of `behavior`.
    ///
    /// - Parameters:
    ///   - behavior: The behavior to watch.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public init(
        of behavior: Behavior,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        log = Log(createdAt: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        behavior.addActivationObserver(Observer(log: log))
    }

    /// Every transition so far, oldest first. Reading it counts as looking at all of them.
    public var events: [Event] {
        log.seen = log.events.count
        return log.events
    }

    /// Asserts that the transitions since the last look are exactly `expected`, in order.
    ///
    /// - Parameters:
    ///   - expected: The transitions that should have happened since the last look.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func expect(
        _ expected: Event...,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        log.isStepping = true
        let actual = Array(log.events[log.seen...])
        log.seen = log.events.count
        guard actual != expected else { return }
        reportFailure(
            "expected the transitions \(expected), but these happened: \(actual)",
            at: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// The transitions, shared with the observer that the behavior keeps.
    @MainActor
    private final class Log {
        var events: [Event] = []
        var seen = 0
        var isStepping = false
        let createdAt: CallerLocation

        init(createdAt: CallerLocation) {
            self.createdAt = createdAt
        }
    }

    private final class Observer: ActivationObserver {
        weak var log: Log?

        init(log: Log) {
            self.log = log
        }

        func behaviorDidAttach() { log?.events.append(.attached) }
        func behaviorDidActivate() { log?.events.append(.activated) }
        func behaviorDidDeactivate() { log?.events.append(.deactivated) }
        func behaviorDidDetach() { log?.events.append(.detached) }
    }

    isolated deinit {
        let unseen = log.isStepping ? Array(log.events[log.seen...]) : []
        guard !unseen.isEmpty else { return }
        reportFailure("transitions that happened but were never asserted: \(unseen)", at: log.createdAt)
    }
}
