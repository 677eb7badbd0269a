import SobreiroPrimitives
import Synchronization

/// A part of a view model's state, or a value derived from it, that views and models can follow.
///
/// Make one with ``StateSource/map(_:)``, on a model or on another projection. A subscriber of a projection
/// receives the current value when it subscribes, then a new value only when it differs (`==`) from the last one
/// it received: a change elsewhere in the state does not reach it. Every way to follow it is that of any
/// ``StateSource``; ordering, threading and weak holding are those of the model (see
/// <doc:ThreadingAndReentrancy>).
///
/// ```swift
/// list.map(\.selection).subscribe(view: detailTitle)
/// router.subscribe(to: list.map(\.selection), onChange: Router.selectionDidChange)
/// ```
///
/// A projection is a description: it holds its model strongly, subscribes nothing by itself, and can be
/// kept and reused. It is `Sendable`: every stored property is immutable and `Sendable`, or a `Mutex`.
public final class StateProjection<Value: Equatable & Sendable>: StateSource<Value>, @unchecked Sendable {
    @usableFromInline
    let projectCurrentValue: @Sendable () -> Value

    /// The identity under which each model follows this projection, held weakly: a record that uses a key keeps
    /// it alive.
    private let followerKeys = Mutex(FollowerKeys())

    /// - Parameter addRecord: Adds a record to the model behind this projection, whose `receive` gets every
    ///   projected value (see `StateSource.addRecordFunction`).
    @usableFromInline
    init(
        currentValue: @escaping @Sendable () -> Value,
        addRecord: @escaping AddRecord
    ) {
        self.projectCurrentValue = currentValue
        super.init(addRecord: addRecord)
    }

    @inlinable
    override package var currentValue: Value {
        projectCurrentValue()
    }

    /// The key of `follower`'s subscription to this projection: the live one's, so that subscribing again finds
    /// it, or a new one.
    @usableFromInline
    override func key(forFollower follower: AnyObject) -> SubscriptionKey? {
        let new = SubscriptionKey()
        // Only keys, which run no user code, are let go of under the lock; `new`, if unused, is released after it.
        return followerKeys.withLock { $0.key(for: ObjectIdentifier(follower), new: new) }
    }
}

/// The keys of the models that follow one projection, each held weakly.
private struct FollowerKeys: Sendable {
    private struct Weak: Sendable {
        weak var key: SubscriptionKey?
    }

    private var keys: [ObjectIdentifier: Weak] = [:]
    /// The size at which the keys that nothing uses anymore are swept out, doubled after each sweep.
    private var sweepAt = 16

    /// The live key of `follower`, or `new`, which is then remembered for it.
    mutating func key(for follower: ObjectIdentifier, new: SubscriptionKey) -> SubscriptionKey {
        if let live = keys[follower]?.key { return live }
        if keys.count >= sweepAt {
            keys = keys.filter { $0.value.key != nil }
            sweepAt = Swift.max(16, keys.count * 2)
        }
        keys[follower] = Weak(key: new)
        return new
    }
}

/// The last value one subscription delivered, a projection's or an effect's. Only the model's deliverer touches
/// it, one delivery at a time (see `ViewModel+Delivery.swift`).
@usableFromInline
package final class LastValue<Value: Equatable>: @unchecked Sendable {
    /// Unchecked: one delivery at a time reads and replaces it, and nothing that runs meanwhile can reach it, so
    /// the dynamic exclusivity check, a runtime call on every delivery, could never fail.
    @usableFromInline
    @exclusivity(unchecked)
    var value: Value?

    @inlinable
    package init() {}

    /// Stores `newValue` and tells whether it differs from the value stored before.
    @inlinable
    package func replace(with newValue: Value) -> Bool {
        guard value != newValue else { return false }
        value = newValue
        return true
    }
}
