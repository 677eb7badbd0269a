public import SobreiroPrimitives

/// An opt-in stream of what happens inside Sobreiro and ScopeKit: transactions, deliveries, hops to the main
/// actor, and the lifecycle of behaviors and bound models.
///
/// Install a handler in one line, and every event reaches it, on the thread where it happens:
///
/// ```swift
/// Trace.install { event in print(event) }
/// ```
///
/// While no handler is installed, tracing costs one relaxed atomic load at each place that could report an
/// event. The handler must be quick, must not write to view models, and must never wait for the main actor: it may
/// run inside a transaction's critical section of the model it hears about, and during a hand-over to a main-actor
/// follower that a write on the main actor waits for.
public enum Trace {
    /// Boxed: a closure read back through the lock's generic `inout` access gets a reabstraction thunk each
    /// time, and writing it back would nest one more thunk per event.
    private static let handler = Locked<Handler?>(nil)
    private static let threadNumbers = Locked<[UInt: Int]>([:])

    /// Sends every event to `handler` from now on, replacing the handler installed before.
    ///
    /// - Parameter handler: Receives each event, on the thread where it happens.
    public static func install(_ handler: @escaping @Sendable (TraceEvent) -> Void) {
        // The replaced handler goes after unlocking: its closure may hold the last reference to an object whose
        // deinit reports an event, which takes this lock.
        let replaced = self.handler.withLock { installed in
            defer { installed = Handler(handler) }
            return installed
        }
        TraceSwitch.shared.set(true)
        _ = consume replaced
    }

    /// Stops tracing; the installed handler receives nothing more, except an event already being reported.
    public static func uninstall() {
        TraceSwitch.shared.set(false)
        let removed = handler.withLock { installed in
            defer { installed = nil }
            return installed
        }
        _ = consume removed
    }

    /// Whether a handler is installed.
    @inlinable
    public static var isEnabled: Bool {
        TraceSwitch.shared.isOn
    }

    /// Reports an event about `subject` if a handler is installed.
    @inlinable
    package static func record(_ kind: @autoclosure () -> TraceEvent.Kind, about subject: @autoclosure () -> AnyObject)
    {
        guard isEnabled else { return }
        report(kind(), about: subject())
    }

    @usableFromInline
    static func report(_ kind: TraceEvent.Kind, about subject: AnyObject) {
        guard let handler = handler.withLock({ $0 }) else { return }
        handler.receive(TraceEvent(kind: kind, subject: subject, thread: currentThreadName()))
    }

    /// "main" on the main queue; otherwise "thread N", numbered in the order threads first report.
    private static func currentThreadName() -> String {
        if MainQueue.isCurrent { return "main" }
        let id = ThreadID.current
        let number = threadNumbers.withLock { numbers in
            if let number = numbers[id] { return number }
            let number = numbers.count + 1
            numbers[id] = number
            return number
        }
        return "thread \(number)"
    }
}

/// The installed handler, in a box of its own.
private final class Handler: Sendable {
    let receive: @Sendable (TraceEvent) -> Void

    init(_ receive: @escaping @Sendable (TraceEvent) -> Void) {
        self.receive = receive
    }
}
