public import Dispatch
public import Synchronization

/// The library's one way onto the main actor: it carries values from a deliverer on any thread to one handler
/// isolated to the main actor. Main-actor views and model handlers, routes and event channels all go through it.
///
/// A value delivered on the main actor is handed over at once, after any that still wait. One delivered elsewhere
/// waits in `waiting`, and a single block on the main queue hands over what waits when it runs, so a burst of
/// deliveries costs one hop. (The main queue is the main actor's executor. A block on it costs less than a task: no
/// task object and no first slab of task memory, about a microsecond less per hop.) `Buffer` decides what waits:
/// the latest value only, for states, or every value in order, for events.
///
/// Three rules make the hand-over safe wherever the value came from:
/// - Right before each call, on the main actor, the hop checks that its subscription has not ended. A cancel made
///   on the main actor, where activations end, is therefore never followed by a call, whichever thread queued the
///   value.
/// - Calls never nest. A value that reaches the main actor while the handler runs (the handler wrote, and the main
///   thread became the deliverer) waits, and is handed over right after the handler returns, so the handler ends
///   on the latest value, as a plain view does.
/// - While values wait for the main queue, the hop holds its subscription. A model released meanwhile has still
///   committed those values, so the handler gets them and a view ends on the model's last state.
/// - A target is never called inside its own call, even through another hop: a value that reaches the main actor
///   for a target whose call is running (a view that subscribed itself again from its render, or that follows two
///   models and wrote one from its render of the other) waits for the main queue instead.
///
/// Inlinable, so that the hop is specialized for the value type, as the model's own delivery is.
@usableFromInline
package final class MainActorHop<Buffer: MainActorHopBuffer>: @unchecked Sendable {
    // The mutable fields skip Swift's dynamic exclusivity checks, ten of which cost a delivery more than its
    // lock: `lock` guards some, the main actor serialises the others, and no access to them overlaps another.
    /// The object handed to `handler`, held weakly so that waiting values do not keep a view alive. Set before
    /// the hop is shared and never changed after.
    @usableFromInline
    package weak var target: AnyObject?
    @usableFromInline
    let handler: @MainActor (AnyObject, Buffer.Value) -> Void
    @usableFromInline
    let lock = Lock()
    /// Values waiting for the main actor. Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    var waiting = Buffer()
    /// The subscription this hop serves, once it exists. Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    weak var subscription: (any MainActorHopSubscription)?
    /// `subscription`, held strongly while values wait, so that they outlive the model that delivered them.
    /// Guarded by `lock`; `nil` whenever `waiting` is empty.
    @usableFromInline
    @exclusivity(unchecked)
    var heldSubscription: (any MainActorHopSubscription)?
    /// A thread known to be running on the main actor right now, or 0.
    @usableFromInline
    package let mainActorThread = Atomic<UInt>(0)
    /// The value last handed over, if `Buffer` keeps it to skip a repeat. Main actor only.
    @usableFromInline
    @exclusivity(unchecked)
    var lastHandedOver: Buffer.Value?
    /// Whether `handOver` runs further up the main actor's stack. Main actor only.
    @usableFromInline
    @exclusivity(unchecked)
    var isHandingOver = false
    /// Whether a value reached the main actor while `handOver` ran. Main actor only.
    @usableFromInline
    @exclusivity(unchecked)
    var hasArrivedDuringHandOver = false
    /// Whether `connect` is still making the subscription, which therefore cannot have ended. Main actor only.
    @usableFromInline
    @exclusivity(unchecked)
    package var isConnecting = false

    /// Creates a hop to `handler`, which receives `target` with each value.
    @inlinable
    package init(target: AnyObject?, handler: @escaping @MainActor (AnyObject, Buffer.Value) -> Void) {
        self.target = target
        self.handler = handler
    }

    /// Makes the hop check `subscription` before each call and hold it while values wait. Call it once, on the main
    /// actor, as soon as the subscription exists.
    @inlinable
    @MainActor
    package func serve(_ subscription: any MainActorHopSubscription) {
        lock.withLock {
            self.subscription = subscription
            if !waiting.isEmpty { heldSubscription = subscription }
        }
    }

    /// Takes a value from the deliverer, which calls it one value at a time, in order, from any thread.
    ///
    /// - Returns: Whether the value made the hop queue a block on the main queue, for the caller to trace.
    @inlinable
    @discardableResult
    package func receive(_ value: Buffer.Value) -> Bool {
        if mainActorThread.load(ordering: .relaxed) == ThreadID.current || MainQueue.isCurrent {
            // One isolated closure, with no closure inside it: each one that is isolated to the main actor checks
            // the executor as it starts, and that check costs more than the rest of the decision.
            let isHandedOver = MainActor.assumeIsolated { () -> Bool in
                if let target, MainActorCalls.isCalling(target) { return false }
                handOver(arriving: value)
                return true
            }
            if isHandedOver { return false }
        }
        let (mustSchedule, _) = lock.withLock { () -> (Bool, Buffer.Value?) in
            let wasEmpty = waiting.isEmpty
            if wasEmpty { heldSubscription = subscription }
            return (wasEmpty, waiting.append(value))
        }
        // Otherwise a block is queued already, or `handOver` is running and takes the value before it returns.
        guard mustSchedule else { return false }
        DispatchQueue.main.async { MainActor.assumeIsolated { self.handOver(arriving: nil) } }
        return true
    }

    /// Hands `arriving`, after every value that waits, to the handler, one call at a time.
    @inlinable
    @MainActor
    func handOver(arriving: Buffer.Value?) {
        guard !isHandingOver else {
            // A call further up the stack is in the handler: it takes this value once the handler returns.
            if let arriving {
                _ = lock.withLock { () -> Buffer.Value? in
                    if waiting.isEmpty { heldSubscription = subscription }
                    return waiting.append(arriving)
                }
            }
            hasArrivedDuringHandOver = true
            return
        }
        isHandingOver = true
        defer { isHandingOver = false }
        var arriving = arriving
        var served: (any MainActorHopSubscription)?
        var hasMore = true
        while hasMore || hasArrivedDuringHandOver {
            hasArrivedDuringHandOver = false
            let (value, subscription, _, _, more) = lock.withLock { () -> Taken in
                let displaced = arriving.flatMap { waiting.append($0) }
                let value = waiting.takeFirst()
                let subscription = heldSubscription ?? self.subscription
                let released = waiting.isEmpty ? heldSubscription : nil
                if waiting.isEmpty { heldSubscription = nil }
                return (value, subscription, displaced, released, !waiting.isEmpty)
            }
            arriving = nil
            hasMore = more
            if served == nil { served = subscription }
            guard let value else { continue }
            if let served {
                // Claimed before anything of the subscription's runs, its state's `==` included: a cancel on
                // another thread either is seen here or waits until the call ends.
                guard served.beginMainActorCall() else { continue }
            } else if !isConnecting {
                continue  // the subscription is gone, and it held no waiting value
            }
            if let target, !Buffer.isRepeat(value, remembering: &lastHandedOver) {
                MainActorCalls.begin(target)
                handler(target, value)
                MainActorCalls.end()
            }
            served?.endMainActorCall()
        }
    }

    /// What one step of `handOver` takes under the lock: the value, the subscription to check, and what the lock
    /// let go of (a displaced value, a held subscription), released after unlocking.
    @usableFromInline
    typealias Taken = (
        Buffer.Value?, (any MainActorHopSubscription)?, Buffer.Value?, (any MainActorHopSubscription)?, Bool
    )
}

/// Whether any subscription of the process hands its states to the main actor. A write that finds another thread
/// delivering reads it, one load, before it asks the main queue whether it runs there (which costs a lookup in the
/// queue's specific values), to know whether it must bring main-actor followers up to date itself. Not a thread
/// ID: on Linux, once the main thread has called `dispatchMain()`, the main queue runs on whichever thread
/// libdispatch picks.
@usableFromInline
package enum MainActorFollowers {
    @usableFromInline
    package static let exist = Atomic<Bool>(false)
}

extension MainActorHop: MainActorHandOver {
    @inlinable
    @MainActor
    package func handOverWaitingValue() {
        if let target, MainActorCalls.isCalling(target) { return }
        handOver(arriving: nil)
    }
}

/// The targets whose handlers run on the main actor right now, innermost last, so that a hop can tell a target
/// that would be called inside its own call. Main actor only; a handful deep at most.
@usableFromInline
@MainActor
enum MainActorCalls {
    @usableFromInline
    @exclusivity(unchecked)
    static var targets: [ObjectIdentifier] = []

    @inlinable
    static func begin(_ target: AnyObject) {
        targets.append(ObjectIdentifier(target))
    }

    @inlinable
    static func end() {
        targets.removeLast()
    }

    @inlinable
    static func isCalling(_ target: AnyObject) -> Bool {
        targets.contains(ObjectIdentifier(target))
    }
}

// MARK: - What a hop keeps between a delivery and its hand-over

/// What a ``MainActorHop`` keeps between a delivery on any thread and its hand-over on the main actor.
///
/// The hop mutates it under its lock, so nothing here may run user code: a value the buffer lets go of is
/// returned, and the hop drops it after unlocking (its `deinit` could be the user's).
@usableFromInline
package protocol MainActorHopBuffer {
    /// What is handed over.
    associatedtype Value: Sendable

    /// An empty buffer.
    init()

    /// Whether no value waits.
    var isEmpty: Bool { get }

    /// Keeps `value` for the main actor.
    ///
    /// - Returns: A value the buffer no longer keeps, for the caller to release after unlocking.
    mutating func append(_ value: Value) -> Value?

    /// Takes the value to hand over next, if any.
    mutating func takeFirst() -> Value?

    /// Whether the handler already has `value`, given `last`, the value last handed over; otherwise may keep
    /// `value` in `last`. On the main actor, without the lock, since it may call the value's `==`.
    static func isRepeat(_ value: Value, remembering last: inout Value?) -> Bool
}

/// Keeps only the latest value, and skips a value equal to the last one handed over: states, where only the
/// newest matters and a burst of writes costs one hand-over.
@usableFromInline
package struct LatestValue<Value: Equatable & Sendable>: MainActorHopBuffer {
    @usableFromInline
    var latest: Value?

    @inlinable
    package init() {}

    @inlinable
    package var isEmpty: Bool {
        guard case .some = latest else { return true }
        return false
    }

    @inlinable
    package mutating func append(_ value: Value) -> Value? {
        let displaced = latest
        latest = value
        return displaced
    }

    @inlinable
    package mutating func takeFirst() -> Value? {
        let first = latest
        latest = nil
        return first
    }

    @inlinable
    package static func isRepeat(_ value: Value, remembering last: inout Value?) -> Bool {
        guard value != last else { return true }
        last = value
        return false
    }
}

/// Keeps every value in the order it came: events, each of which the handler must see.
@usableFromInline
package struct EveryValue<Value: Sendable>: MainActorHopBuffer {
    /// Values appended since `outgoing` was last refilled, oldest first.
    @usableFromInline
    var incoming: [Value] = []
    /// Values to hand over, newest first, so that the next one is taken from the end in O(1).
    @usableFromInline
    var outgoing: [Value] = []

    @inlinable
    package init() {}

    @inlinable
    package var isEmpty: Bool { incoming.isEmpty && outgoing.isEmpty }

    @inlinable
    package mutating func append(_ value: Value) -> Value? {
        incoming.append(value)
        return nil
    }

    @inlinable
    package mutating func takeFirst() -> Value? {
        if outgoing.isEmpty {
            swap(&incoming, &outgoing)
            outgoing.reverse()
        }
        return outgoing.popLast()
    }

    @inlinable
    package static func isRepeat(_ value: Value, remembering last: inout Value?) -> Bool {
        false  // every event counts, and none is kept
    }
}

/// The subscription a ``MainActorHop`` serves. The hop claims each call of the handler from it, on the main actor,
/// so that ending the subscription on another thread waits for a call under way (R5).
@usableFromInline
package protocol MainActorHopSubscription: AnyObject, Sendable {
    /// Whether the subscription was cancelled or ended otherwise; once `true`, it stays `true`.
    var hasEnded: Bool { get }

    /// Claims a call of the handler for the calling thread, then tells whether the subscription still wants it.
    /// A thread that ends the subscription meanwhile waits until ``endMainActorCall()``; one that ended it before
    /// is seen here, and the call is given up.
    func beginMainActorCall() -> Bool

    /// Ends the call that ``beginMainActorCall()`` claimed, and wakes a thread that waits for it.
    func endMainActorCall()
}

/// A ``MainActorHop`` as the subscription it serves sees it: a write on the main actor that brought the subscription
/// up to date has the hop hand over at once the value that waits for the main queue, if any.
@usableFromInline
package protocol MainActorHandOver: AnyObject, Sendable {
    /// Hands over the value that waits for the main queue now, unless the target's call runs further up the stack:
    /// the value then keeps waiting, and is handed over right after that call, as any value that arrives meanwhile.
    @MainActor
    func handOverWaitingValue()
}

// MARK: - Whether code runs on the main queue

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
