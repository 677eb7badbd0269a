public import Synchronization

/// The record of one subscription of one object (a view or a view model) to one view model: the entry in the
/// model's subscriber list, and the token that `subscribe` returns.
///
/// The object is held weakly and never reassigned, so any thread may read it. A thread calls `receive` only
/// while it owns `slot`: the model's deliverer claims it for each delivery, and a subscribing thread holds it
/// from the moment the entry joins the list until its first render has caught up with the model. So the
/// subscriber is never called by two threads at once, and `deliveredVersion` belongs to the owner of `slot`.
@usableFromInline
final class SubscriptionRecord<State: ViewState>: StateSubscription, @unchecked Sendable {
    /// Calls the subscriber's code with a state and the version the model committed it at. `notice.willCall`
    /// runs right before the code of the view or handler, and not at all when a filter (a projection's value that
    /// did not change) drops the state.
    @usableFromInline
    typealias Receive = @Sendable (_ target: AnyObject, _ state: State, _ version: UInt64, _ notice: CallNotice) -> Void

    /// The object that receives states. `nil` once it is deallocated.
    @usableFromInline
    weak let target: AnyObject?

    /// The model this subscription belongs to, so that the token can end it.
    @usableFromInline
    weak let owner: ViewModel<State>?

    /// Identifies the subscription in its model's list. The identity of the target for views and for whole
    /// states (subscribing the same target again finds it); a unique identity for projections followed by
    /// handlers, so that one model can follow several parts of another.
    @usableFromInline
    let key: ObjectIdentifier

    @usableFromInline
    let receive: Receive

    /// The thread that may call `receive` now; a cancel waits for its call.
    @usableFromInline
    let slot = CallSlot()

    /// The version of the last state handed to `receive`; 0 before the first render. Owned by `slot`.
    @usableFromInline
    @exclusivity(unchecked)
    var deliveredVersion: UInt64 = 0

    /// Borrows `target` and `owner`: taking them owned would end in a release of each, which for objects with
    /// weak references is the runtime's slow path.
    @usableFromInline
    init(
        target: borrowing AnyObject, owner: borrowing ViewModel<State>, key: ObjectIdentifier? = nil,
        receive: @escaping Receive
    ) {
        self.target = copy target
        self.owner = copy owner
        self.key = key ?? ObjectIdentifier(copy target)
        self.receive = receive
        super.init()
    }

    /// Whether the subscription still wants states: its target is alive and nobody ended it.
    @inlinable
    var isLive: Bool {
        target != nil && !isCancelled.load(ordering: .relaxed)
    }

    /// Hands `state` to a live, subscribed target that has not seen it yet. Called by the model's deliverer.
    ///
    /// - Returns: `false` when the target is deallocated, so the caller can prune it.
    @inlinable
    func deliver(_ state: State, version: UInt64, on thread: UInt, isTracing: Bool) -> Bool {
        guard let target else { return false }
        // Owned by a subscribing thread whose first render is under way: it catches up with the model itself.
        guard beginCall(on: thread) else { return true }
        if deliveredVersion < version {
            deliveredVersion = version
            call(target, state, version: version, isTracing: isTracing)
        }
        endCall()
        return true
    }

    /// Claims `slot` for a call on `thread`.
    @inlinable
    @inline(__always)
    func beginCall(on thread: UInt) -> Bool {
        slot.beginCall(on: thread)
    }

    /// Gives `slot` up, and wakes a thread that waits for the call to end.
    @inlinable
    @inline(__always)
    func endCall() {
        guard slot.giveUp() else { return }
        CallWaiting.wakeAll()
        // The entry may have left the list during the call: the model forgets it, and renders what waited for it.
        owner?.forgetFinishedCalls()
    }

    /// Calls `receive` unless the subscription has ended, reporting the delivery to the trace only if the view
    /// or handler is called. The calling thread owns `slot`: a cancel either is seen here or waits for this.
    @inlinable
    @inline(__always)
    func call(_ target: AnyObject, _ state: State, version: UInt64, isTracing: Bool) {
        guard !isCancelled.load(ordering: .sequentiallyConsistent) else { return }
        receive(target, state, version, CallNotice(isTracing: isTracing, subscriber: self))
    }

    /// Stops deliveries; called when the subscriber list lets go of this entry, and by `cancel()`. Needs no lock:
    /// the flag is atomic, and a call under way is waited for separately (`waitForCallToEnd()`).
    @inlinable
    func markCancelled() {
        isCancelled.store(true, ordering: .sequentiallyConsistent)
    }

    /// Waits until a call that another thread is running for this subscription returns; see
    /// `CallSlot.waitForCallToEnd()`. Call it after `markCancelled`.
    @inlinable
    func waitForCallToEnd() {
        slot.waitForCallToEnd()
    }

    /// Reports a call of the subscriber's code to the trace.
    @usableFromInline
    func traceCall(to target: AnyObject) {
        Trace.record(.delivered(to: String(describing: type(of: target))), about: owner ?? target)
    }

    override package var isWaitedForByCancel: Bool {
        slot.isWaitedFor
    }

    override func cancel() {
        markCancelled()
        guard let owner else { return waitForCallToEnd() }
        // Waits for a running call once the entry is out of the list; inside a transaction of the model on this
        // thread, the transaction waits for it after it unlocks.
        owner.remove(self)
    }
}

/// Passed to a subscription's code with each state, so that the trace hears of the calls that reach the view or
/// handler: a plain value rather than a closure, which would cost a context and an indirect call per delivery.
@frozen
@usableFromInline
package struct CallNotice {
    @usableFromInline let isTracing: Bool
    /// Kept alive by the call that passes this notice.
    @usableFromInline unowned(unsafe) let subscriber: any TracedSubscription

    @inlinable
    init(isTracing: Bool, subscriber: any TracedSubscription) {
        self.isTracing = isTracing
        self.subscriber = subscriber
    }

    /// Call right before the view's or handler's code runs.
    @inlinable
    @inline(__always)
    package func willCall(_ target: AnyObject) {
        if isTracing { reportCall(to: target) }
    }

    /// Out of line, so that the code that calls a view keeps no registers across the trace's rarely taken path.
    @usableFromInline
    @inline(never)
    func reportCall(to target: AnyObject) {
        subscriber.traceCall(to: target)
    }
}

/// A subscription that reports calls of its code to the trace.
@usableFromInline
protocol TracedSubscription: AnyObject {
    func traceCall(to target: AnyObject)
}

extension SubscriptionRecord: TracedSubscription {}
