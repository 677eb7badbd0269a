public import SobreiroPrimitives
public import SobreiroTrace
public import Synchronization

/// The hop of a subscription to states, which keeps only the latest one.
@usableFromInline
package typealias MainActorStateHop<Value: Equatable & Sendable> = MainActorHop<LatestValue<Value>>

extension MainActorHop {
    /// Subscribes `target` through a new hop: `subscribe` makes the subscription with the hop's `receive`, and a
    /// first value it delivers on this thread reaches `handler` before this returns. The subscription keeps the hop
    /// (`mainActorHop`), so that a write made on the main actor reaches `handler` before it returns even while
    /// another thread delivers.
    @inlinable
    @MainActor
    package static func connect<Value>(
        _ target: AnyObject,
        render handler: @escaping @MainActor (AnyObject, Value) -> Void,
        subscribe: (_ receive: @escaping @Sendable (AnyObject, Value) -> Void) -> StateSubscription
    ) -> StateSubscription where Buffer == LatestValue<Value> {
        let hop = MainActorHop(target: target, handler: handler)
        hop.isConnecting = true
        MainActorFollowers.exist.store(true, ordering: .relaxed)
        hop.mainActorThread.store(ThreadID.current, ordering: .relaxed)
        let subscription = subscribe { _, value in hop.receiveTraced(value) }
        hop.mainActorThread.store(0, ordering: .relaxed)
        hop.isConnecting = false
        hop.serve(subscription)
        // A live subscription that `subscribe` kept under the same key keeps the hop its states already go through.
        if subscription.mainActorHop == nil { subscription.mainActorHop = hop }
        return subscription
    }
}

extension MainActorHop {
    /// Takes a value from the deliverer, as ``MainActorHop/receive(_:)`` does, and reports to the trace each block it
    /// queues on the main queue.
    @inlinable
    package func receiveTraced(_ value: Buffer.Value) {
        guard receive(value), let target else { return }
        Trace.record(.hopped(to: String(describing: type(of: target))), about: target)
    }
}

extension StateSubscription: MainActorHopSubscription {
    /// Whether the subscription was cancelled, unsubscribed or replaced.
    @inlinable
    package var hasEnded: Bool {
        isCancelled.load(ordering: .acquiring)
    }
}
