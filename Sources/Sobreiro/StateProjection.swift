import SobreiroPrimitives

/// A part of a view model's state, or a value derived from it, that views and models can follow.
///
/// Make one with ``ViewModel/map(_:)`` and narrow it further with ``map(_:)``. A subscriber of a projection
/// receives the current value when it subscribes, then a new value only when it differs (`==`) from the
/// last one it received: a change elsewhere in the state does not reach it. Ordering, threading and weak
/// holding are those of the model (see <doc:ThreadingAndReentrancy>).
///
/// ```swift
/// list.map(\.selection).subscribe(view: detailTitle)
/// router.subscribe(to: list.map(\.selection), onChange: Router.selectionDidChange)
/// ```
///
/// A projection is a description: it holds its model strongly, subscribes nothing by itself, and can be
/// kept and reused.
public final class StateProjection<Value: Equatable & Sendable>: Sendable {
    /// Receives every projected value, equal ones included, and calls its last argument right before it calls
    /// the subscriber's code, which it may skip (see `SubscriptionRecord.Receive`).
    @usableFromInline
    typealias Receive = @Sendable (_ target: AnyObject, _ value: Value, _ notice: CallNotice) -> Void

    /// Subscribes a follower to the model behind this projection. `key` is as for
    /// `ViewModel.subscription(of:key:replacingLive:receive:)`.
    @usableFromInline
    let subscribeToEveryValue:
        @Sendable (_ follower: AnyObject, _ key: ObjectIdentifier?, _ receive: @escaping Receive) -> StateSubscription

    /// The value projected from the model's state now, as `ViewModel.state` reads it: for a follower that must
    /// hold a value before its subscription's first delivery, which a subscribe made inside a delivery of the
    /// same model defers.
    @usableFromInline
    package let currentValue: @Sendable () -> Value

    @usableFromInline
    init(
        currentValue: @escaping @Sendable () -> Value,
        subscribeToEveryValue:
            @escaping @Sendable (AnyObject, ObjectIdentifier?, @escaping Receive) -> StateSubscription
    ) {
        self.currentValue = currentValue
        self.subscribeToEveryValue = subscribeToEveryValue
    }

    /// A projection of this projection's value.
    ///
    /// ```swift
    /// let selectedTitle = list.map(\.selection).map { $0?.title ?? "" }
    /// ```
    ///
    /// - Parameter transform: Derives the new value. It runs on the delivering thread for every change of
    ///   the model's state, so keep it cheap and free of side effects.
    /// - Returns: The projection of the derived value.
    @inlinable
    public func map<Derived>(_ transform: @escaping @Sendable (Value) -> Derived) -> StateProjection<Derived> {
        StateProjection<Derived> {
            transform(self.currentValue())
        } subscribeToEveryValue: { follower, key, receive in
            self.subscribeToEveryValue(follower, key) { target, value, notice in
                receive(target, transform(value), notice)
            }
        }
    }

    /// Subscribes `follower` so that `receive` gets the current value, then each value that differs from the
    /// last one it got.
    ///
    /// - Parameter distinct: Whether the subscription has an identity of its own, so that it neither
    ///   replaces nor is replaced by another subscription of `follower`.
    @inlinable
    package func subscribe(
        _ follower: AnyObject,
        distinct: Bool,
        receive: @escaping @Sendable (AnyObject, Value) -> Void
    ) -> StateSubscription {
        let lastValue = LastValue<Value>()
        return subscribeToEveryValue(follower, distinct ? ObjectIdentifier(lastValue) : nil) {
            target, value, notice in
            guard lastValue.admits(value, to: target, notice: notice) else { return }
            receive(target, value)
        }
    }
}

extension ViewModel {
    /// A projection of this model's state, which views and models follow to hear only about changes of the
    /// projected value.
    ///
    /// ```swift
    /// list.map(\.header).subscribe(view: headerView)       // renders only when the header changes
    /// subscribe(to: list.map(\.items.count), onChange: BadgeViewModel.countDidChange)
    /// ```
    ///
    /// - Parameter transform: Derives the value from a state, often a key path. It runs on the delivering
    ///   thread for every change of the state, so keep it cheap and free of side effects.
    /// - Returns: The projection.
    @inlinable
    public final func map<Value>(_ transform: @escaping @Sendable (State) -> Value) -> StateProjection<Value> {
        StateProjection {
            transform(self.committedVersionedState.state)
        } subscribeToEveryValue: { follower, key, receive in
            self.subscription(of: follower, key: key, replacingLive: false) { target, state, _, notice in
                receive(target, transform(state), notice)
            }
        }
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

    /// Whether `newValue`, delivered to `target`, differs from the last value: then stores it and tells the trace
    /// of the call to come. Filtered before `willCall(_:)`, so that the trace reports only the values that reach
    /// the subscriber.
    @inlinable
    @inline(__always)
    func admits(_ newValue: Value, to target: AnyObject, notice: CallNotice) -> Bool {
        guard replace(with: newValue) else { return false }
        notice.willCall(target)
        return true
    }
}
