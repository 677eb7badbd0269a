import Dispatch
import Observation
import Sobreiro
public import SobreiroObservation
import SobreiroPrimitives

extension StateRecorder {
    /// Creates a recorder of the states that an observed object shows, as a SwiftUI view that reads its whole
    /// state would see them.
    ///
    /// The recorder reads the object's `state` inside `withObservationTracking`, records it, and
    /// reads it again on the main queue after each change: the current state at once, then each state the object
    /// takes, coalesced as the object coalesces them. A write from another thread reaches the object on the main
    /// actor later, so await it with ``next(timeout:isolation:fileID:filePath:line:column:)`` or
    /// ``first(timeout:isolation:fileID:filePath:line:column:where:)`` rather than asserting at once.
    ///
    /// ```swift
    /// let search = model.observed()
    /// let shown = StateRecorder(observing: search)
    /// Task.detached { model.answer(["Ana"]) }
    /// await shown.first { $0.players == ["Ana"] }
    /// ```
    ///
    /// - Parameters:
    ///   - observed: The object to record. The recorder keeps it alive.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    @MainActor
    public convenience init(
        observing observed: ObservedState<State>,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(fileID: fileID, filePath: filePath, line: line, column: column)
        let forwarder = ObservationForwarder(observed: observed, recorder: self)
        self.forwarder.withLock { $0 = forwarder }
        forwarder.record()
    }
}

/// Feeds a recorder the states of an observed object, read under `withObservationTracking`.
@MainActor
private final class ObservationForwarder<State: ViewState> {
    let observed: ObservedState<State>
    weak var recorder: StateRecorder<State>?

    init(observed: ObservedState<State>, recorder: StateRecorder<State>) {
        self.observed = observed
        self.recorder = recorder
    }

    /// Records the object's state, and asks to be called again once it changes.
    func record() {
        guard let recorder else { return }
        let state = withObservationTracking {
            observed.state
        } onChange: { [weak self] in
            // Called as the state is about to change: read it once the object holds the new one.
            DispatchQueue.main.async { MainActor.assumeIsolated { self?.record() } }
        }
        recorder.render(state: state)
    }
}
