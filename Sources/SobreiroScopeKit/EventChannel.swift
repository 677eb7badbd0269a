public import ScopeKit
import Sobreiro
import Synchronization

/// A channel of events that several view models and behaviors send to and react to: a mediator between
/// features that do not know each other.
///
/// ```swift
/// enum AppEvent: Sendable { case sessionExpired }
/// let events = EventChannel<AppEvent>()
///
/// // the feature that finds out
/// events.send(.sessionExpired)
///
/// // a session model, while its activation lasts
/// events.subscribe { event in session.signOut() }.store(in: activation)
/// ```
///
/// Events are delivered one at a time, in the order they were sent, to the handlers subscribed when the event
/// is delivered. `send` may be called from any thread and from inside a handler: an event sent while another
/// is being delivered waits for it and is delivered right after, by the same thread. No lock is held while a
/// handler runs.
public final class EventChannel<Event: Sendable>: Sendable {
    private struct Contents {
        var handlers: [EventHandler<Event>] = []
        var queue: [Event] = []
        var isDelivering = false
    }

    private let contents = Locked(Contents())

    /// Creates a channel with no handlers.
    public init() {}

    /// Delivers `event` to every subscribed handler, after the events sent before it.
    ///
    /// - Parameter event: The event to deliver.
    public func send(_ event: Event) {
        let isDeliverer = contents.withLock { contents in
            contents.queue.append(event)
            guard !contents.isDelivering else { return false }
            contents.isDelivering = true
            return true
        }
        guard isDeliverer else { return }
        while let (event, handlers) = nextDelivery() {
            for handler in handlers { handler.receive(event) }
        }
    }

    private func nextDelivery() -> (Event, [EventHandler<Event>])? {
        contents.withLock { contents in
            guard !contents.queue.isEmpty else {
                contents.isDelivering = false
                return nil
            }
            return (contents.queue.removeFirst(), contents.handlers)
        }
    }

    /// Calls `handler` with every event sent from now on, on the sending thread, until the result is cancelled or
    /// released.
    ///
    /// Unlike the `StateSubscription` of a view model, the result ends the subscription when it is released, as
    /// Combine's `sink` does: keep it.
    ///
    /// - Parameter handler: Called with each event.
    /// - Returns: The subscription: cancel it, or store it in an activation or a set of cancellables.
    public func subscribe(_ handler: @escaping @Sendable (Event) -> Void) -> AnyCancellable {
        add(EventHandler(handler))
    }

    /// Calls `handler` on the main actor with every event sent from now on, in order, until the result is
    /// cancelled or released.
    ///
    /// An event sent on the main queue reaches `handler` before `send` returns; one sent from another thread
    /// reaches it asynchronously.
    ///
    /// - Parameter handler: Called on the main actor with each event.
    /// - Returns: The subscription: cancel it, or store it in an activation or a set of cancellables.
    @MainActor
    public func subscribe(onMainActor handler: @escaping @MainActor (Event) -> Void) -> AnyCancellable {
        let inbox = MainActorInbox(handler)
        return add(EventHandler { inbox.receive($0) })
    }

    private func add(_ handler: EventHandler<Event>) -> AnyCancellable {
        contents.withLock { $0.handlers.append(handler) }
        return AnyCancellable { [weak self] in
            handler.isCancelled.store(true, ordering: .releasing)
            self?.contents.withLock { $0.handlers.removeAll { $0 === handler } }
        }
    }
}

/// One subscribed handler; a delivery that took it before it was cancelled skips it.
private final class EventHandler<Event>: Sendable {
    let isCancelled = Atomic<Bool>(false)
    private let handler: @Sendable (Event) -> Void

    init(_ handler: @escaping @Sendable (Event) -> Void) {
        self.handler = handler
    }

    func receive(_ event: Event) {
        guard !isCancelled.load(ordering: .acquiring) else { return }
        handler(event)
    }
}

/// Hands events to a main-actor handler in the order they arrive, at once on the main queue when nothing waits.
private final class MainActorInbox<Event: Sendable>: Sendable {
    private let handler: @MainActor (Event) -> Void
    /// Events waiting for the main actor, and whether a task to hand them over is scheduled.
    private let waiting = Locked<(events: [Event], isScheduled: Bool)>(([], false))

    init(_ handler: @escaping @MainActor (Event) -> Void) {
        self.handler = handler
    }

    func receive(_ event: Event) {
        let mustSchedule = waiting.withLock { waiting -> Bool? in
            if waiting.events.isEmpty && !waiting.isScheduled && MainQueue.isCurrent { return nil }
            waiting.events.append(event)
            defer { waiting.isScheduled = true }
            return !waiting.isScheduled
        }
        switch mustSchedule {
        case nil: MainActor.assumeIsolated { handler(event) }
        case true?: Task { @MainActor in self.handOver() }
        case false?: break
        }
    }

    @MainActor
    private func handOver() {
        while true {
            let events = waiting.withLock { waiting in
                defer { waiting.events = [] }
                if waiting.events.isEmpty { waiting.isScheduled = false }
                return waiting.events
            }
            guard !events.isEmpty else { return }
            for event in events { handler(event) }
        }
    }
}
