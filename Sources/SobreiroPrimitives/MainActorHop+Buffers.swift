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

/// The subscription a ``MainActorHop`` serves. The hop asks it, on the main actor right before each call, whether
/// it has ended.
@usableFromInline
package protocol MainActorHopSubscription: AnyObject, Sendable {
    /// Whether the subscription was cancelled or ended otherwise; once `true`, it stays `true`.
    var hasEnded: Bool { get }
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
