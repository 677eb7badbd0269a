import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting

/// What the operations of an effect saw, in the order they saw it, with the test clock's time.
final class RunLog: Sendable {
    private let entries = Locked<[String]>([])

    var all: [String] { entries.withLock { $0 } }

    func record(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    /// Records `entry` with the time of `clock`, in whole milliseconds: "oak@300".
    func record(_ entry: String, at clock: TestClock) {
        let (seconds, attoseconds) = clock.now.offset.components
        record("\(entry)@\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)")
    }
}

/// The failure of an operation that tests make fail.
struct Offline: Error, Equatable, CustomStringConvertible {
    var attempt = 0
    var description: String { "offline (attempt \(attempt))" }
}

/// A model bound to a behavior hosted in a root of its own, kept for as long as this value is.
@MainActor
struct Host {
    let root = RootScope()
    let behavior = Behavior()

    /// - Parameter clock: The clock the model's timed effects wait on; a new one by default. The root also gives
    ///   the tree the test kit's view of its effects, as a `TestHost` does.
    init(_ model: some ScopedViewModel, clock: TestClock = TestClock()) {
        root.provide(.testing(clock: clock))
        behavior.bind(model)
        root.host(behavior)
    }

    /// Ends the model's activation.
    func deactivate() {
        behavior.detach()
    }

    /// Starts a new activation of the model.
    func reactivate() {
        root.host(behavior)
    }
}

/// A source of live values, like a socket: each call of ``stream()`` makes a stream of its own, which gets every
/// value sent from then on until it is cancelled.
final class Broadcast<Value: Sendable>: Sendable {
    private struct Contents {
        var next = 0
        var live: [Int: AsyncThrowingStream<Value, any Error>.Continuation] = [:]
        var ended = 0
    }

    private let contents = Locked(Contents())

    /// The streams that are still listening.
    var listeners: Int { contents.withLock { $0.live.count } }

    /// The streams that ended: cancelled by their consumer, or finished.
    var ended: Int { contents.withLock { $0.ended } }

    func stream() -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream()
        let key = contents.withLock { contents in
            contents.next += 1
            contents.live[contents.next] = continuation
            return contents.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.contents.withLock { contents in
                contents.live[key] = nil
                contents.ended += 1
            }
        }
        return stream
    }

    func send(_ value: Value) {
        for listener in contents.withLock({ Array($0.live.values) }) { listener.yield(value) }
    }

    func fail(_ error: any Error) {
        for listener in contents.withLock({ Array($0.live.values) }) { listener.finish(throwing: error) }
    }
}
