public import Sobreiro
import SobreiroPrimitives

/// A view that records every state a view model delivers, so that a test can assert each one.
///
/// The recorder is a `StatefulView` like any other, so it sees exactly what a real view sees: the current state
/// when it subscribes, then each committed change that differs from the previous one. Assert the states step by
/// step with ``expect(_:fileID:filePath:line:column:)-([State],_,_,_,_)``, await states that tasks and effects
/// write with ``next(timeout:isolation:fileID:filePath:line:column:)`` and ``first(timeout:isolation:fileID:filePath:line:column:where:)``,
/// or read the whole ``history``.
///
/// ```swift
/// @Test func loadingThenLoaded() {
///     let model = ListViewModel()
///     let states = StateRecorder(subscribedTo: model)
///     states.expect(.loading)
///     model.didLoad(["oak"])
///     states.expect(.loaded(["oak"]))
/// }
/// ```
///
/// Once a test asserts step by step, the recorder is exhaustive: every state must be looked at, through an
/// assertion, an awaited state or ``history``. A state delivered after the last look then fails the test when
/// the recorder is released, at the line that created it. A mismatch prints the path of each differing field,
/// first difference first: `state.items[2].title: "oak" → "cork"`. Failures go to Swift Testing or XCTest, whichever runs the test.
/// The recorder is safe to use from any thread.
public final class StateRecorder<State: ViewState>: StatefulView, Sendable {
    /// The states rendered so far, and how many of them the test has looked at.
    let log: ExhaustiveLog<State>
    /// The main-actor object that feeds this recorder, kept alive by it; see `StateRecorder+MainActor.swift`.
    let forwarder = Locked<AnyObject?>(nil)

    /// Creates a recorder that is not subscribed to anything yet.
    ///
    /// - Parameters:
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public convenience init(
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(createdAt: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Creates a recorder that reports a state never looked at to `createdAt`.
    init(createdAt: CallerLocation) {
        noteTestProcess()
        log = ExhaustiveLog(createdAt: createdAt)
    }

    /// Creates a recorder and subscribes it to `model`, which renders the current state into it at once.
    ///
    /// - Parameters:
    ///   - model: The view model to record. It holds the recorder weakly: keep the recorder alive.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public convenience init(
        subscribedTo model: ViewModel<State>,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(fileID: fileID, filePath: filePath, line: line, column: column)
        model.subscribe(view: self)
    }

    deinit {
        log.reportUnasserted(describeUnasserted)
    }

    /// The failure for states delivered after the last look: each as its difference from the state before it, the
    /// first from the last state looked at, so that the change the test missed stands out.
    private func describeUnasserted(lastSeen: State?, unseen: [State]) -> String {
        var lines = ["\(unseen.count) state(s) delivered but never asserted:"]
        var previous = lastSeen
        for (index, state) in unseen.enumerated() {
            let label = unseen.count == 1 ? "state" : "state #\(index + 1)"
            if let before = previous, let difference = describeDifference(between: before, and: state) {
                let against = index == 0 ? "the last state asserted" : "the state before it"
                lines.append("  \(label), against \(against) (before → after):")
                lines.append(contentsOf: difference.split(separator: "\n").map { "    \($0)" })
            } else {
                lines.append("  \(state)")
            }
            previous = state
        }
        return lines.joined(separator: "\n")
    }

    /// Every state rendered so far, oldest first. Reading it counts as looking at all of them.
    public var history: [State] {
        log.lookAtAll()
    }

    /// The last state rendered, or `nil` before the first render.
    public var lastState: State? {
        log.last
    }

    /// Appends `state` to ``history``.
    ///
    /// - Parameter state: The state the view model rendered.
    public func render(state: State) {
        log.append(state)
    }
}
