import Sobreiro

public struct Counter: ViewState {
    public var value: Int
}

public final class SobreiroContender: Contender {
    public static let name = "Sobreiro"
    public static func supports(_ scenario: Scenario) -> Bool { true }

    let model: ViewModel<Counter>

    public init(value: Int) {
        model = ViewModel(initialState: Counter(value: value))
    }

    public func write(_ value: Int) {
        model.write { $0.value = value }
    }

    public func attach(_ sink: Sink) -> AnyObject {
        let view = SinkView(sink: sink)
        model.subscribe(view: view)
        return view
    }

    public func detach(_ handle: AnyObject) {
        model.unsubscribe(view: handle as! SinkView)
    }

    public func chain(to next: SobreiroContender) -> AnyObject {
        next.model.subscribe(to: model) { [unowned next] state in next.write(state.value) }
    }
}

final class SinkView: StatefulView {
    let sink: Sink

    init(sink: Sink) {
        self.sink = sink
    }

    func render(state: Counter) {
        sink.render(state.value)
    }
}

/// A state of two fields; the projection scenarios follow only `value`, through `map(\.value)`.
public struct TwoFields: ViewState {
    public var value: Counter
    public var other: Int
}

/// `ViewModel<TwoFields>`: a whole-state view with `subscribe(view:)`, a view of `value` with
/// `map(\.value).subscribe(view:)`.
public final class SobreiroProjectingContender: ProjectingContender {
    public static let name = "Sobreiro"

    let model: ViewModel<TwoFields>

    public init(value: Int, other: Int) {
        model = ViewModel(initialState: TwoFields(value: Counter(value: value), other: other))
    }

    public func write(value: Int) {
        model.write { $0.value.value = value }
    }

    public func write(other: Int) {
        model.write { $0.other = other }
    }

    public func attachWholeState(_ sink: Sink) -> AnyObject {
        let view = TwoFieldsSinkView(sink: sink)
        model.subscribe(view: view)
        return view
    }

    public func attachValue(_ sink: Sink) -> AnyObject {
        let view = SinkView(sink: sink)
        model.map(\.value).subscribe(view: view)
        return view
    }
}

final class TwoFieldsSinkView: StatefulView {
    let sink: Sink

    init(sink: Sink) {
        self.sink = sink
    }

    func render(state: TwoFields) {
        sink.render(state.value.value)
    }
}
