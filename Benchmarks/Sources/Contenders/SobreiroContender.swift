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
