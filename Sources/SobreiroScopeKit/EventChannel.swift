public import ScopeKit
import Sobreiro
import SobreiroPrimitives
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
    /// Once cancelling or releasing the result has returned, `handler` is never called again. A call that another
    /// thread is already running finishes first: the cancel waits for it to return. Called from inside `handler`,
    /// the cancel does not wait, and the current call simply finishes. So `handler` must not block on a thread
    /// that may cancel it, nor wait for a lock that the cancelling thread holds: the two would wait for each other.
    ///
    /// - Parameter handler: Called with each event.
    /// - Returns: The subscription: cancel it, or store it in an activation or a set of cancellables.
    public func subscribe(_ handler: @escaping @Sendable (Event) -> Void) -> AnyCancellable {
        add(EventHandler(handler))
    }

    /// Calls `handler` on the main actor with every event sent from now on, in order, until the result is
    /// cancelled or released.
    ///
    /// An event sent on the main queue reaches `handler` before `send` returns, after any event that still waits for
    /// the main actor, unless another thread is delivering events of this channel (that thread queues it for the
    /// main actor) or `handler` itself is running: an event sent from inside `handler` reaches it right after the
    /// current call returns, never inside it. An event sent from another thread reaches it asynchronously. Once the
    /// result is cancelled on the main actor, as the cancellables of an activation are when it ends, `handler` is
    /// never called again, even for events that other threads had already queued for it. Cancelled on another
    /// thread, the cancel waits for a call that the main actor has begun, so `handler` must not wait for a lock
    /// that the cancelling thread holds.
    ///
    /// - Parameter handler: Called on the main actor with each event.
    /// - Returns: The subscription: cancel it, or store it in an activation or a set of cancellables.
    @MainActor
    public func subscribe(onMainActor handler: @escaping @MainActor (Event) -> Void) -> AnyCancellable {
        let hop = MainActorHop<EveryValue<Event>>(target: nil) { _, event in handler(event) }
        let eventHandler = EventHandler<Event> { hop.receiveTraced($0) }
        // Before the handler is shared: the hop hands events to it only while it is subscribed.
        hop.target = eventHandler
        hop.serve(eventHandler)
        return add(eventHandler)
    }

    /// Whether a cancel waits for a call of one of the handlers that another thread is running. Lets tests
    /// release that call only once the cancel is known to wait for it.
    package var isCancelWaitingForHandler: Bool {
        contents.withLock { contents in
            contents.handlers.contains { $0.slot.isWaitedFor || $0.mainActorSlot.isWaitedFor }
        }
    }

    private func add(_ handler: EventHandler<Event>) -> AnyCancellable {
        contents.withLock { $0.handlers.append(handler) }
        return AnyCancellable { [weak self] in
            // Waits while the handler is still listed, so that `isCancelWaitingForHandler` sees the wait; a
            // delivery that takes it meanwhile skips it.
            handler.cancel()
            self?.contents.withLock { $0.handlers.removeAll { $0 === handler } }
        }
    }
}

/// One subscribed handler; a delivery that took it before it was cancelled skips it, and so does a main-actor hop
/// that had queued an event for it. A cancel waits for a call that another thread is running (see `CallSlot`).
private final class EventHandler<Event>: MainActorHopSubscription {
    private let isCancelled = Atomic<Bool>(false)
    /// The thread calling `handler` now.
    let slot = CallSlot()
    /// The thread calling the main-actor handler now, for a handler subscribed `onMainActor`: `handler` only hands
    /// the event to the hop, which calls the main-actor handler later.
    let mainActorSlot = CallSlot()
    private let handler: @Sendable (Event) -> Void

    init(_ handler: @escaping @Sendable (Event) -> Void) {
        self.handler = handler
    }

    var hasEnded: Bool {
        isCancelled.load(ordering: .acquiring)
    }

    func beginMainActorCall() -> Bool {
        mainActorSlot.beginCall(unlessSet: isCancelled)
    }

    func endMainActorCall() {
        mainActorSlot.endCall()
    }

    /// Calls the handler unless it is cancelled. The channel delivers one event at a time, so the slot is free.
    func receive(_ event: Event) {
        guard slot.beginCall() else { fatalError("Sobreiro: two threads delivered to one event handler at once") }
        // After claiming the slot: a cancel either is seen here or waits for this call.
        if !isCancelled.load(ordering: .sequentiallyConsistent) { handler(event) }
        slot.endCall()
    }

    /// Stops calls, and waits for a call that another thread is running, as `CallSlot` allows.
    func cancel() {
        isCancelled.store(true, ordering: .sequentiallyConsistent)
        slot.waitForCallToEnd()
        mainActorSlot.waitForCallToEnd()
    }
}
