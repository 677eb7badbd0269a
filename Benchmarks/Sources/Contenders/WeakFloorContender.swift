import Synchronization

/// The floor with its renderers held weakly, as Sobreiro holds views: the same mutex, duplicate check and
/// direct calls after unlocking as `FloorContender`, but the list holds each renderer weakly, and every delivery
/// loads the reference (skipping a renderer that is gone). This is the least a design that holds its views
/// weakly must do.
///
/// Of the layouts tried, this one executes the fewest instructions per delivery: an entry object holding a weak
/// reference to a class. Entries stored inline in the array cost about 45 instructions more per delivery (Swift
/// copies an entry with a weak reference before reading it), and renderers that wrap a closure about 40 more.
public final class WeakFloorContender: WeakRenderer, Contender, @unchecked Sendable {
    public static let name = "Weak floor"
    public static func supports(_ scenario: Scenario) -> Bool { true }

    private final class Entry: @unchecked Sendable {
        weak let renderer: WeakRenderer?
        let key: ObjectIdentifier

        init(renderer: WeakRenderer) {
            self.renderer = renderer
            key = ObjectIdentifier(renderer)
        }
    }

    private struct Guarded {
        var value: Int
        var entries: ContiguousArray<Entry> = []
        var positions: [ObjectIdentifier: Int] = [:]
    }

    private let guarded: Mutex<Guarded>

    public init(value: Int) {
        guarded = Mutex(Guarded(value: value))
    }

    public func write(_ value: Int) {
        let entries = guarded.withLock { state -> ContiguousArray<Entry>? in
            guard state.value != value else { return nil }
            state.value = value
            return state.entries
        }
        guard let entries else { return }
        entries.withUnsafeBufferPointer { buffer in
            for entry in buffer { entry.renderer?.render(value) }
        }
    }

    override func render(_ value: Int) {
        write(value)
    }

    public func attach(_ sink: Sink) -> AnyObject {
        add(SinkRenderer(sink: sink))
    }

    public func detach(_ handle: AnyObject) {
        let key = ObjectIdentifier(handle)
        guarded.withLock { state in
            guard let index = state.positions.removeValue(forKey: key) else { return }
            let last = state.entries.removeLast()
            if index < state.entries.count {
                state.entries[index] = last
                state.positions[last.key] = index
            }
        }
    }

    /// Held weakly, as Sobreiro holds a subscribing model: the caller keeps `next` alive.
    public func chain(to next: WeakFloorContender) -> AnyObject {
        add(next)
    }

    private func add(_ renderer: WeakRenderer) -> AnyObject {
        let entry = Entry(renderer: renderer)
        let value = guarded.withLock { state in
            state.positions[entry.key] = state.entries.count
            state.entries.append(entry)
            return state.value
        }
        renderer.render(value)
        return renderer
    }
}

/// What the weak floor renders into.
public class WeakRenderer: @unchecked Sendable {
    func render(_ value: Int) {}
}

private final class SinkRenderer: WeakRenderer, @unchecked Sendable {
    let sink: Sink

    init(sink: Sink) {
        self.sink = sink
    }

    override func render(_ value: Int) {
        sink.render(value)
    }
}
