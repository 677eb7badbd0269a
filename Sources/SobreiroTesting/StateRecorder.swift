public import Sobreiro

/// A view that records every state a view model renders into it, for assertions in tests.
///
/// The recorder is a ``Sobreiro/StatefulView`` like any other, so it sees exactly what a real view sees:
/// the current state when it subscribes, then each committed change that differs from the previous one.
/// It is safe to use from any thread.
///
/// ```swift
/// @Test func loadingThenLoaded() {
///     let model = ListViewModel()
///     let recorder = StateRecorder(subscribedTo: model)
///     model.didLoad(["a"])
///     #expect(recorder.history == [.loading, .loaded(["a"])])
/// }
/// ```
public final class StateRecorder<State: ViewState>: StatefulView, Sendable {
    private let recorded = Locked<[State]>([])

    /// Creates a recorder that is not subscribed to anything yet.
    public init() {}

    /// Creates a recorder and subscribes it to `model`, which renders the current state into it at once.
    ///
    /// - Parameter model: The view model to record. It holds the recorder weakly: keep the recorder alive.
    public convenience init(subscribedTo model: ViewModel<State>) {
        self.init()
        model.subscribe(view: self)
    }

    /// Every state rendered so far, oldest first.
    public var history: [State] {
        recorded.withLock { $0 }
    }

    /// The last state rendered, or `nil` before the first render.
    public var lastState: State? {
        recorded.withLock { $0.last }
    }

    /// Appends `state` to ``history``.
    ///
    /// - Parameter state: The state the view model rendered.
    public func render(state: State) {
        recorded.withLock { $0.append(state) }
    }
}
