import Sobreiro
import SobreiroPrimitives

/// Collects the library's trace, to print under each caption or to show under the live frame.
///
/// The handler runs on whichever thread an event happens, sometimes inside a model's transaction, so it only
/// formats the event and appends it under a lock.
final class TraceTimeline: Sendable {
    private let lines = Locked<[String]>([])
    private let limit: Int

    /// A timeline that keeps at most `limit` events, dropping the oldest.
    init(limit: Int = 10_000) {
        self.limit = limit
    }

    /// Installs the trace handler; `onEvent` runs after each event is recorded.
    func install(onEvent: (@Sendable () -> Void)? = nil) {
        Trace.install { [self] event in
            record(event.description)
            onEvent?()
        }
    }

    private func record(_ line: String) {
        lines.withLock { lines in
            lines.append(line)
            if lines.count > limit { lines.removeFirst(lines.count - limit) }
        }
    }

    /// Returns the events recorded since the last call, and forgets them.
    func takeAll() -> [String] {
        lines.withLock { lines in
            defer { lines.removeAll() }
            return lines
        }
    }

    /// The last `count` events.
    func latest(_ count: Int) -> [String] {
        lines.withLock { Array($0.suffix(count)) }
    }
}
