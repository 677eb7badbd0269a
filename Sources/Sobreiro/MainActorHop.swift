public import Dispatch
public import Synchronization

/// Carries values from a model's deliverer, on any thread, to one subscriber on the main actor, keeping only
/// the latest value in flight.
///
/// A value delivered on the main queue is handed over at once. One delivered elsewhere waits in `pending`,
/// and a single block on the main queue hands over whatever is pending when it runs, so a burst of background
/// writes costs one hop. A value equal to the one the subscriber last received is not handed over again.
///
/// Inlinable, so that the relay is specialized for the subscriber's value type, as the model's own delivery is.
@usableFromInline
package final class MainActorRelay<Value: Equatable & Sendable>: @unchecked Sendable {
    @usableFromInline
    weak var target: AnyObject?
    @usableFromInline
    let handler: @MainActor (AnyObject, Value) -> Void
    /// The subscription this relay serves; a scheduled hand-over checks that it has not ended.
    @usableFromInline
    weak var subscription: StateSubscription?
    /// The latest value waiting for the main actor.
    @usableFromInline
    let pending = Locked<Value?>(nil)
    /// A thread known to be running on the main actor right now, or 0.
    @usableFromInline
    let mainActorThread = Atomic<UInt>(0)
    /// The value last handed to `handler`. Main actor only.
    @usableFromInline
    var lastHandedOver: Value?

    @inlinable
    @MainActor
    init(target: AnyObject, handler: @escaping @MainActor (AnyObject, Value) -> Void) {
        self.target = target
        self.handler = handler
    }

    /// Subscribes `target` through a new relay: `subscribe` makes the subscription with the relay's
    /// `receive`, and a first value it delivers on this thread reaches `handler` before this returns.
    @inlinable
    @MainActor
    package static func connect(
        _ target: AnyObject,
        render handler: @escaping @MainActor (AnyObject, Value) -> Void,
        subscribe: (_ receive: @escaping @Sendable (AnyObject, Value) -> Void) -> StateSubscription
    ) -> StateSubscription {
        let relay = MainActorRelay(target: target, handler: handler)
        relay.mainActorThread.store(ThreadID.current, ordering: .relaxed)
        let subscription = subscribe { _, value in relay.receive(value) }
        relay.mainActorThread.store(0, ordering: .relaxed)
        relay.subscription = subscription
        return subscription
    }

    /// Called by the model's deliverer, one value at a time in commit order.
    @inlinable
    func receive(_ value: Value) {
        if mainActorThread.load(ordering: .relaxed) == ThreadID.current || MainQueue.isCurrent {
            pending.withLock { $0 = nil }  // this value is newer than any hand-over still scheduled
            MainActor.assumeIsolated { handOver(value) }
            return
        }
        let needsSchedule = pending.withLock { pending in
            defer { pending = value }
            return pending == nil
        }
        if needsSchedule {
            if let target { Trace.record(.hopped(to: String(describing: type(of: target))), about: target) }
            // The main queue is the main actor's executor. A block on it costs less than a task: no task object
            // and no first slab of task memory, about a microsecond less per hop.
            DispatchQueue.main.async { MainActor.assumeIsolated { self.handOverPending() } }
        }
    }

    @inlinable
    @MainActor
    func handOverPending() {
        let value = pending.withLock { pending in
            defer { pending = nil }
            return pending
        }
        guard let value, let subscription, !subscription.isCancelled.load(ordering: .acquiring) else { return }
        handOver(value)
    }

    @inlinable
    @MainActor
    func handOver(_ value: Value) {
        guard let target, value != lastHandedOver else { return }
        lastHandedOver = value
        handler(target, value)
    }
}

/// Tells whether the calling code runs on the main dispatch queue, the home of the main actor.
@usableFromInline
package enum MainQueue {
    private static let key: DispatchSpecificKey<Void> = {
        let key = DispatchSpecificKey<Void>()
        DispatchQueue.main.setSpecific(key: key, value: ())
        return key
    }()

    @usableFromInline
    package static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) != nil
    }
}
