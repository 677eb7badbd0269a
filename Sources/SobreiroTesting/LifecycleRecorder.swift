public import ScopeKit
import Sobreiro
import SobreiroPrimitives

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

    /// The transitions, shared with the observer that the behavior keeps; `Sendable`, so that `deinit` can read it.
    private let log: ExhaustiveLog<Event>

    /// Starts recording the transitions of `behavior` from now on, from the state it is in.
    ///
    /// A recorder made for a behavior that is already active records nothing until the behavior deactivates.
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
        log = ExhaustiveLog(createdAt: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        behavior.addActivationObserver(Observer(log: log, state: behavior.state))
    }

    /// Every transition so far, oldest first. Reading it counts as looking at all of them.
    public var events: [Event] {
        log.lookAtAll()
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
        let actual = log.takeUnseen()
        guard actual != expected else { return }
        reportFailure(
            "expected the transitions \(expected), but these happened: \(actual)",
            at: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Turns the behavior's notifications into transitions. A behavior tells a new observer of an activation
    /// that was already under way, maybe twice; the observer keeps the state it last saw and records only a
    /// change of it, so the recorder starts from the state the behavior was in when it was made.
    private final class Observer: ActivationObserver {
        weak var log: ExhaustiveLog<Event>?
        var state: ActivityState

        init(log: ExhaustiveLog<Event>, state: ActivityState) {
            self.log = log
            self.state = state
        }

        func behaviorDidAttach() { record(.attached, to: .attached) }
        func behaviorDidActivate() { record(.activated, to: .active) }
        func behaviorDidDeactivate() { record(.deactivated, to: .attached) }
        func behaviorDidDetach() { record(.detached, to: .detached) }

        private func record(_ event: Event, to newState: ActivityState) {
            guard newState != state else { return }
            state = newState
            log?.append(event)
        }
    }

    // Not isolated: an isolated deinit runs without the task-local values of the code that released the
    // recorder, and so without the test to report to. This one runs where the test lets the recorder go.
    deinit {
        log.reportUnasserted { _, unseen in "transitions that happened but were never asserted: \(unseen)" }
    }
}
