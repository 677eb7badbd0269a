/// Something whose states views and models follow: a ``ViewModel``, or a ``StateProjection`` of one.
///
/// Every way to follow state is declared here once, for both: views subscribe with `subscribe(view:)`, models
/// follow with ``ViewModel/subscribe(to:onChange:)-(_,(S)->Void)``, tasks iterate ``states``, and ``map(_:)``
/// narrows a source to a part of its value. A subscriber gets the current value before `subscribe` returns, then
/// each committed change, in commit order (see <doc:ThreadingAndReentrancy>). A projection delivers a new value only
/// when it differs (`==`) from the last one the subscriber received.
///
/// ```swift
/// viewModel.subscribe(view: listView)                  // the whole state
/// viewModel.map(\.header).subscribe(view: headerView)  // only the header
/// ```
///
/// You do not subclass `StateSource`: make a model by subclassing ``ViewModel``, and a projection with
/// ``map(_:)``.
///
/// ## Subscribing twice
///
/// A subscriber follows a source through one subscription. Subscribing it again while that subscription is live
/// keeps the subscription as it is: nothing is rendered again, the view or handler passed the second time is not
/// installed, and the token returned is the live subscription's. To change a handler, end the subscription first
/// (cancel its token, or call `unsubscribe`), then subscribe again.
///
/// What counts as the same subscription:
/// - a view and a model: a view has one subscription per model, whether it renders the model's state or a
///   projection of it, so that it is never called by two threads at once;
/// - a following model and its source: the model it follows, or one projection object (each ``map(_:)`` makes a
///   new one, so a model can follow several parts of another: keep a projection to subscribe to it again).
///
/// A subscriber that is deallocated ends its subscriptions, and a new object that happens to get its address is a
/// new subscriber. Each ``states`` iterator, publisher subscription and observed object is a subscriber of its own.
open class StateSource<Value: Equatable & Sendable>: @unchecked Sendable {
    /// Calls a subscriber's code with a value and the version of the model's state it comes from; `notice.willCall`
    /// runs right before the code of the view or handler (see `SubscriptionRecord.Receive`).
    @usableFromInline
    typealias Receive = @Sendable (_ target: AnyObject, _ value: Value, _ version: UInt64, _ notice: CallNotice) -> Void

    /// Adds a record of `target` under `key` to the model behind `source`, the source that holds this function (see
    /// `addRecord(of:key:receive:)`).
    @usableFromInline
    typealias AddRecord =
        @Sendable (
            _ source: StateSource<Value>, _ target: AnyObject, _ key: ObjectIdentifier?, _ receive: @escaping Receive
        ) -> StateSubscription

    /// How this source adds a record: the model's own code, or a projection's call to the source it projects.
    ///
    /// A stored function rather than a method that each subclass overrides: a model makes it in its inlinable
    /// initializer, where the app's state type is known, so that it is the model's code specialized for that type.
    /// A method would be reached through the class's table wherever the compiler cannot tell the model's exact
    /// class, as on a value typed `ViewModel<State>` itself, and run the model's generic code: a few metadata
    /// look-ups that made a subscribe four times as costly.
    @usableFromInline
    final let addRecordFunction: AddRecord

    /// Internal, so that only ``ViewModel`` and ``StateProjection`` are sources.
    @usableFromInline
    init(addRecord: @escaping AddRecord) {
        addRecordFunction = addRecord
    }

    /// The one way to add a subscriber: a record in the model's subscriber list under `key` (the identity of
    /// `target` when `nil`), whose `receive` gets the current value, then every value the model delivers to it,
    /// repeated ones included. A live record under the same key is kept, and its token returned.
    ///
    /// One indirect call, to code specialized for the app's state wherever the model was made with its type
    /// known (see `addRecordFunction`); a model made in generic code runs the model's generic code, which costs
    /// a few metadata look-ups per subscribe (not per delivery).
    @inlinable
    @inline(__always)
    final func addRecord(of target: AnyObject, key: ObjectIdentifier?, receive: @escaping Receive)
        -> StateSubscription
    {
        addRecordFunction(self, target, key, receive)
    }

    /// The value as the model last committed it, never the draft of a transaction running on this thread: for a
    /// follower that must hold a value before its subscription's first delivery, which a subscribe made inside a
    /// delivery of the same model defers.
    @usableFromInline
    package var currentValue: Value {
        fatalError("StateSource is not subclassed outside Sobreiro: subclass ViewModel, or make a projection with map")
    }

    /// A new filter of the values equal to the last one delivered, for one subscription of a projection; `nil` for a
    /// model, whose subscriptions receive each committed version once, as views of the whole state always have.
    ///
    /// A check of the class rather than a method that each subclass overrides: the compiler folds it wherever it
    /// knows the source's type, a value typed `ViewModel<State>` included, so that a model's subscription carries
    /// no filter at all; elsewhere it is one cast per subscribe.
    @inlinable
    @inline(__always)
    final func repeatFilter() -> LastValue<Value>? {
        self is StateProjection<Value> ? LastValue() : nil
    }

    /// The identity under which `follower`, a model with a handler, follows this source; `nil` for the identity
    /// of `follower` itself.
    @usableFromInline
    func key(forFollower follower: AnyObject) -> SubscriptionKey? {
        nil
    }
}

extension StateSource {
    /// Subscribes `follower` so that `receive` gets the current value, then each new one: the path of every
    /// subscription but a plain view's, which fuses the same steps with its render.
    ///
    /// - Parameter key: The identity of the subscription, kept alive by it; `nil` for the identity of `follower`.
    @inlinable
    @inline(__always)
    package final func subscribe(
        _ follower: AnyObject,
        key: SubscriptionKey? = nil,
        receive: @escaping @Sendable (AnyObject, Value) -> Void
    ) -> StateSubscription {
        let filter = repeatFilter()
        return addRecord(of: follower, key: key.map(ObjectIdentifier.init)) { target, value, _, notice in
            _ = key  // lives as long as the record, so that no other object takes its address meanwhile
            // Filtered before `willCall`, so that the trace reports only the values that reach the subscriber.
            if let filter, !filter.replace(with: value) { return }
            notice.willCall(target)
            receive(target, value)
        }
    }

    /// A projection of this source's value, which views and models follow to hear only about changes of the
    /// projected value.
    ///
    /// ```swift
    /// list.map(\.header).subscribe(view: headerView)       // renders only when the header changes
    /// subscribe(to: list.map(\.items.count), onChange: BadgeViewModel.countDidChange)
    /// let selectedTitle = list.map(\.selection).map { $0?.title ?? "" }
    /// ```
    ///
    /// - Parameter transform: Derives the value, often with a key path. It runs on the delivering thread for every
    ///   change of the model's state, so keep it cheap and free of side effects.
    /// - Returns: The projection. It holds this source strongly.
    @inlinable
    @inline(__always)
    public final func map<Derived>(_ transform: @escaping @Sendable (Value) -> Derived) -> StateProjection<Derived> {
        StateProjection<Derived> {
            transform(self.currentValue)
        } addRecord: { _, follower, key, receive in
            self.addRecord(of: follower, key: key) { target, value, version, notice in
                receive(target, transform(value), version, notice)
            }
        }
    }
}

/// The identity of one model's subscription to one projection, so that subscribing again finds it.
@usableFromInline
package final class SubscriptionKey: Sendable {
    @inlinable
    package init() {}
}
