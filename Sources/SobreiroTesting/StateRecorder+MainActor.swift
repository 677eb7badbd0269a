import Dispatch
import Observation
public import Sobreiro
public import SobreiroObservation
import SobreiroPrimitives

extension StateRecorder {
    /// Creates a recorder that sees what a main-actor view of `model` sees, and subscribes it.
    ///
    /// The recorder is fed by a `MainActorStatefulView`, so it records the states that such a view renders:
    /// the current state at once, then the changes, on the main actor, coalesced when they come from other
    /// threads. Await them with ``next(timeout:isolation:fileID:filePath:line:column:)`` or
    /// ``first(timeout:isolation:fileID:filePath:line:column:where:)``.
    ///
    /// ```swift
    /// let rendered = StateRecorder(subscribedOnMainActorTo: model)
    /// Task.detached { model.write { $0.count = 3 } }
    /// await rendered.first { $0.count == 3 }
    /// ```
    ///
    /// - Parameters:
    ///   - model: The view model to record.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    @MainActor
    public convenience init(
        subscribedOnMainActorTo model: ViewModel<State>,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        self.init(createdAt: location) { forwarder in model.subscribe(view: forwarder) }
    }

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
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        self.init(createdAt: location) { forwarder in forwarder.follow(observed) }
    }

    /// Creates a recorder fed on the main actor through a forwarder that it keeps alive, and lets `start` connect
    /// the forwarder to what it records.
    @MainActor
    private convenience init(createdAt: CallerLocation, start: (MainActorForwarder<State>) -> Void) {
        self.init(createdAt: createdAt)
        let forwarder = MainActorForwarder(recorder: self)
        self.forwarder.withLock { $0 = forwarder }
        start(forwarder)
    }
}

/// A main-actor view that hands what it renders to a recorder: the states a model delivers to it, or those it
/// reads from an observed object.
///
/// The recorder keeps it alive, and it holds the recorder weakly, so that releasing the recorder ends the feed.
@MainActor
private final class MainActorForwarder<State: ViewState>: MainActorStatefulView {
    weak var recorder: StateRecorder<State>?
    /// The object whose state it reads, kept alive with the recorder; `nil` when a model renders into it.
    private var observed: ObservedState<State>?

    init(recorder: StateRecorder<State>) {
        self.recorder = recorder
    }

    func render(state: State) {
        recorder?.render(state: state)
    }

    /// Records the state of `observed` now and after each of its changes.
    func follow(_ observed: ObservedState<State>) {
        self.observed = observed
        recordObserved()
    }

    /// Records the observed object's state, read under `withObservationTracking`, and asks to be called again once
    /// it changes.
    private func recordObserved() {
        guard let observed, let recorder else { return }
        let state = withObservationTracking {
            observed.state
        } onChange: { [weak self] in
            // Called as the state is about to change: read it once the object holds the new one.
            DispatchQueue.main.async { MainActor.assumeIsolated { self?.recordObserved() } }
        }
        recorder.render(state: state)
    }
}
