import Observation
import Synchronization

@Observable
final class ObservableCounter {
    var value: Int

    init(value: Int) {
        self.value = value
    }
}

/// An `@Observable` model observed continuously by re-registering `withObservationTracking` after every change.
///
/// Observation is not thread-safe, so a mutex serialises writes. It has no way to end an observation early and
/// reports changes before they happen, so it cannot express the churn and chain scenarios.
public final class ObservationContender: Contender, @unchecked Sendable {
    public static let name = "Observation"
    public static func supports(_ scenario: Scenario) -> Bool {
        scenario != .churn && scenario != .chain
    }

    private let model: ObservableCounter
    private let writes = Mutex(())

    public init(value: Int) {
        model = ObservableCounter(value: value)
    }

    public func write(_ value: Int) {
        writes.withLock { _ in
            guard model.value != value else { return }
            model.value = value
        }
    }

    public func attach(_ sink: Sink) -> AnyObject {
        let observer = Observer(model: model, sink: sink)
        sink.render(model.value)
        observer.observe()
        return observer
    }

    public func detach(_ handle: AnyObject) {
        preconditionFailure("Observation cannot end an observation early")
    }

    public func chain(to next: ObservationContender) -> AnyObject {
        preconditionFailure("Observation reports a change before it happens, so a chain cannot forward it")
    }

    private final class Observer: @unchecked Sendable {
        let model: ObservableCounter
        let sink: Sink

        init(model: ObservableCounter, sink: Sink) {
            self.model = model
            self.sink = sink
        }

        func observe() {
            withObservationTracking {
                _ = model.value
            } onChange: { [self] in
                sink.render(0)  // the new value is not readable yet: onChange runs before the assignment
                observe()
            }
        }
    }
}
