public import SobreiroPrimitives
public import SobreiroTrace
public import Synchronization

/// One subscription to a view model: of a view, of another model, or of a projection of the state.
///
/// Every `subscribe` returns one. Keeping it is optional: dropping it cancels nothing, and the subscription
/// lasts until ``cancel()``, an `unsubscribe`, or the end of the subscriber or the model. Cancel it from any
/// thread or actor; in a ScopeKit behavior, store it among the cancellables of an activation so that it ends
/// with that activation:
///
/// ```swift
/// override func willActivate(cancellables: inout Set<AnyCancellable>) {
///     viewModel.subscribe(view: label).store(in: &cancellables)
/// }
/// ```
///
/// Two tokens are equal when they are the same instance.
public class StateSubscription: @unchecked Sendable, Hashable {
    /// Set once the subscription ends; a render scheduled for later checks it.
    @usableFromInline
    let isCancelled = Atomic<Bool>(false)

    /// The thread running a call of this subscription's handler on the main actor, through its hop; ending the
    /// subscription on another thread waits for it (see `MainActorHopSubscription`).
    @usableFromInline
    let mainActorSlot = CallSlot()

    /// The hop that hands this subscription's states to the main actor, if it has one: a write made on the main
    /// actor while another thread delivers then brings the subscription up to date itself, and has the hop hand
    /// over at once what waits in it, before the write returns (see
    /// `ViewModel.catchUpMainActorFollowersWhenTransactionEnds()`). Set by the hop's `connect`; only code on the
    /// main queue reads or writes it, one block at a time, so it needs no lock.
    @usableFromInline
    @exclusivity(unchecked)
    package var mainActorHop: (any MainActorHandOver)?

    @usableFromInline
    init() {}

    /// Ends the subscription: once this returns, its view or handler is never called again.
    ///
    /// A call that another thread is already running finishes first: `cancel()` waits for it to return. It
    /// does not wait in three cases, where waiting could never end:
    /// - called from that very call (a handler ending its own subscription): the call simply finishes;
    /// - called inside a transaction of the same model on this thread: the transaction holds the lock that the
    ///   call may need, so the wait moves to the end of the transaction, after it unlocks, and `write` returns
    ///   once the call has returned;
    /// - when the running call waits for this thread, directly or through other threads: in a cancel of its
    ///   own, or for the lock of a model whose transaction this thread runs. The call may then still be running
    ///   when this returns, and it is the last one.
    ///
    /// A handler must not otherwise block on the thread that cancels it (a lock of its own, a synchronous hop to
    /// the main queue): the two would wait for each other. Calling it again, or after the subscription was
    /// replaced or ended otherwise, does nothing.
    public func cancel() {}

    /// Whether a thread waits in ``cancel()`` for a call of this subscription that another thread is running.
    /// Lets tests release that call only once the cancel is known to wait for it.
    package var isWaitedForByCancel: Bool { false }

    /// Two values are equal when they are the same instance.
    public static func == (lhs: StateSubscription, rhs: StateSubscription) -> Bool {
        lhs === rhs
    }

    /// Hashes the identity of the instance.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

// MARK: - The record behind every subscription

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

    /// The identity of the target, if it is alive, read under the model's lock.
    ///
    /// Reading a weak reference takes a strong one. Dropped here, it could be the last, if the target's owner let
    /// go of it meanwhile on another thread; the target's `deinit` (the user's, which may well unsubscribe) would
    /// then run under the lock. So the strong reference goes into `parked`, which the caller drops after unlocking,
    /// as it drops the entries it removed.
    @inlinable
    func targetIdentity(parking parked: inout ReleasedSubscribers<State>) -> ObjectIdentifier? {
        guard let target else { return nil }
        #if DEBUG
            TestPoints.didReadTargetUnderLock?(target)
        #endif
        let identity = ObjectIdentifier(target)
        parked.park(target)
        return identity
    }

    /// Whether the subscription still wants states, read under the model's lock: its target is alive (see
    /// `targetIdentity(parking:)`) and nobody ended it.
    @inlinable
    func isLive(parking parked: inout ReleasedSubscribers<State>) -> Bool {
        targetIdentity(parking: &parked) != nil && !isCancelled.load(ordering: .relaxed)
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
        mainActorSlot.waitForCallToEnd()
    }

    /// Reports a call of the subscriber's code to the trace.
    @usableFromInline
    func traceCall(to target: AnyObject) {
        Trace.record(.delivered(to: String(describing: type(of: target))), about: owner ?? target)
    }

    override package var isWaitedForByCancel: Bool {
        slot.isWaitedFor || mainActorSlot.isWaitedFor
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

// MARK: - Who calls a subscription now

/// The thread that may call one subscription's code now, so that ending the subscription can wait for a call
/// that another thread already runs.
///
/// A thread claims the slot for each call, checks after claiming that the subscription has not ended, and gives
/// the slot up when the call returns. Ending a subscription sets its ended flag first, then calls
/// ``waitForCallToEnd()``. Both sides use sequentially consistent operations, so either the call sees the flag
/// and skips the code, or the cancel sees the claimed slot and waits for it. The waits go through `CallWaiting`,
/// which keeps them from closing a cycle with other cancels and with the locks of models.
@frozen
@usableFromInline
package struct CallSlot: ~Copyable, @unchecked Sendable {
    /// The thread that may call the code now, or 0. Bit 0 is set while another thread waits for that call to end
    /// (thread IDs are addresses, so the bit is free).
    @usableFromInline
    let caller = Atomic<UInt>(0)

    /// Creates a free slot.
    @inlinable
    package init() {}

    // Written out: with the synthesized one, Swift 6.3.1 crashes optimizing `Subscriber`'s deinit across modules.
    deinit {}

    /// Claims the slot for a call on `thread`; fails if another thread holds it.
    @inlinable
    @inline(__always)
    package func beginCall(on thread: UInt) -> Bool {
        caller.compareExchange(
            expected: 0,
            desired: thread,
            successOrdering: .sequentiallyConsistent,
            failureOrdering: .relaxed
        ).exchanged
    }

    /// Claims the slot for a call on the calling thread; fails if another thread holds it.
    @inlinable
    package func beginCall() -> Bool {
        beginCall(on: ThreadID.current)
    }

    /// Claims the slot for a call on the calling thread, then tells whether `ended` is still unset; gives the slot
    /// up if it is set. A thread that sets `ended` before it looks at the slot is then either seen here, or finds
    /// the slot claimed and waits for the call (``waitForCallToEnd()``).
    @inlinable
    package func beginCall(unlessSet ended: borrowing Atomic<Bool>) -> Bool {
        guard beginCall() else { return false }
        guard !ended.load(ordering: .sequentiallyConsistent) else {
            endCall()
            return false
        }
        return true
    }

    /// Hands the slot to `thread` while nobody else can claim it (the subscription is not yet shared).
    @inlinable
    package func hold(for thread: UInt) {
        caller.store(thread, ordering: .sequentiallyConsistent)
    }

    /// Moves the slot, which a thread holds, to `thread`, keeping the mark that a thread waits for the call.
    @inlinable
    func rehold(for thread: UInt) {
        var held = caller.load(ordering: .sequentiallyConsistent)
        while true {
            let (exchanged, original) = caller.compareExchange(
                expected: held, desired: thread | held & 1, ordering: .sequentiallyConsistent)
            if exchanged { return }
            held = original
        }
    }

    /// Gives the slot up without waking anyone.
    ///
    /// - Returns: Whether a thread waits for the call to end: then call `CallWaiting.wakeAll()`, after
    ///   unlocking if a lock is held.
    @inlinable
    @inline(__always)
    package func giveUp() -> Bool {
        caller.exchange(0, ordering: .sequentiallyConsistent) & 1 != 0
    }

    /// Gives the slot up, and wakes a thread that waits for the call to end.
    @inlinable
    @inline(__always)
    package func endCall() {
        if giveUp() { CallWaiting.wakeAll() }
    }

    /// The thread that holds the slot now, or 0.
    @inlinable
    var holder: UInt {
        caller.load(ordering: .sequentiallyConsistent) & ~1
    }

    /// Marks the call running now as waited for, so that the thread running it learns, as it gives the slot up,
    /// that others wait for its end: `giveUp()` returns `true`.
    ///
    /// - Returns: `false` if no call runs now.
    @inlinable
    func markWaitedFor() -> Bool {
        var running = caller.load(ordering: .sequentiallyConsistent)
        while running != 0 {
            if running & 1 != 0 { return true }
            let (exchanged, original) = caller.compareExchange(
                expected: running, desired: running | 1, ordering: .sequentiallyConsistent)
            if exchanged { return true }
            running = original
        }
        return false
    }

    /// Whether a thread waits for the running call to end.
    @inlinable
    package var isWaitedFor: Bool {
        caller.load(ordering: .relaxed) & 1 != 0
    }

    /// Waits until a call that another thread is running returns. Call it after setting the subscription's ended
    /// flag: no new call starts then, so the subscription's code has run for the last time when this returns.
    ///
    /// It does not wait for the calling thread's own call (a handler ending its own subscription), nor when the
    /// running call waits for the calling thread, directly or through other threads: for a model's lock that a
    /// transaction of the calling thread holds, or in a cancel of its own (see `CallWaiting`).
    @inlinable
    package func waitForCallToEnd() {
        let running = caller.load(ordering: .sequentiallyConsistent)
        guard running != 0, running & ~1 != ThreadID.current else { return }
        waitForCallOfOtherThread(running & ~1)
    }

    /// Waits until the call running now, if any, returns, so that the calling thread may claim the slot.
    ///
    /// - Returns: `false` when it cannot wait: the call runs on the calling thread, further up its stack, or it
    ///   waits for the calling thread (see `CallWaiting`).
    @inlinable
    func waitForRunningCall() -> Bool {
        let running = caller.load(ordering: .sequentiallyConsistent)
        guard running != 0 else { return true }
        guard running & ~1 != ThreadID.current else { return false }
        return waitForCallOfOtherThread(running & ~1)
    }

    @usableFromInline
    @discardableResult
    func waitForCallOfOtherThread(_ thread: UInt) -> Bool {
        CallWaiting.waitForCall(on: thread) {
            // Mark the call as waited for, so that its end wakes the waiters; done once the thread gave it up.
            let (exchanged, now) = caller.compareExchange(
                expected: thread,
                desired: thread | 1,
                ordering: .sequentiallyConsistent
            )
            return !exchanged && now != thread | 1
        }
    }
}

// MARK: - Calls through the main-actor hop

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
        // The switch first, so that a hop with tracing off never enters `SobreiroTrace`.
        guard receive(value), TraceSwitch.shared.isOn, let target else { return }
        Trace.record(.hopped(to: String(describing: type(of: target))), about: target)
    }
}

extension StateSubscription: MainActorHopSubscription {
    /// Whether the subscription was cancelled, unsubscribed or replaced.
    @inlinable
    package var hasEnded: Bool {
        isCancelled.load(ordering: .acquiring)
    }

    @inlinable
    package func beginMainActorCall() -> Bool {
        mainActorSlot.beginCall(unlessSet: isCancelled)
    }

    @inlinable
    package func endMainActorCall() {
        mainActorSlot.endCall()
    }
}
