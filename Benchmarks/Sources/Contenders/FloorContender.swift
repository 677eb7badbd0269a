import Synchronization

/// The least a correct design must do: a mutex around the state and its renderers, a duplicate check, and
/// direct closure calls made after unlocking.
public final class FloorContender: Contender {
    public static let name = "Floor"
    public static func supports(_ scenario: Scenario) -> Bool { true }

    private struct Guarded {
        var value: Int
        var renderers: ContiguousArray<Renderer> = []
        var positions: [ObjectIdentifier: Int] = [:]
    }

    private final class Renderer: Sendable {
        let render: @Sendable (Int) -> Void
        init(render: @escaping @Sendable (Int) -> Void) { self.render = render }
    }

    private let guarded: Mutex<Guarded>

    public init(value: Int) {
        guarded = Mutex(Guarded(value: value))
    }

    public func write(_ value: Int) {
        let renderers = guarded.withLock { state -> ContiguousArray<Renderer>? in
            guard state.value != value else { return nil }
            state.value = value
            return state.renderers
        }
        guard let renderers else { return }
        for renderer in renderers { renderer.render(value) }
    }

    public func attach(_ sink: Sink) -> AnyObject {
        add { sink.render($0) }
    }

    public func detach(_ handle: AnyObject) {
        let key = ObjectIdentifier(handle)
        guarded.withLock { state in
            guard let index = state.positions.removeValue(forKey: key) else { return }
            let last = state.renderers.removeLast()
            if index < state.renderers.count {
                state.renderers[index] = last
                state.positions[ObjectIdentifier(last)] = index
            }
        }
    }

    public func chain(to next: FloorContender) -> AnyObject {
        add { [unowned next] in next.write($0) }
    }

    private func add(_ render: @escaping @Sendable (Int) -> Void) -> AnyObject {
        let renderer = Renderer(render: render)
        let value = guarded.withLock { state in
            state.positions[ObjectIdentifier(renderer)] = state.renderers.count
            state.renderers.append(renderer)
            return state.value
        }
        renderer.render(value)
        return renderer
    }
}
