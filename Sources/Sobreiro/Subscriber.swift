public import Synchronization

/// One subscription of one object (a view or a view model) to one view model; it is also the token that
/// `subscribe` returns.
///
/// The object is held weakly and never reassigned, so any thread may read it. `deliveredVersion` belongs to
/// the model's single active deliverer; handing that role from thread to thread orders the accesses (see
/// `ViewModel+Delivery.swift`).
@usableFromInline
final class Subscriber<State: ViewState>: StateSubscription, @unchecked Sendable {
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
    let receive: @Sendable (AnyObject, State) -> Void

    /// The version of the last state handed to `receive`; 0 before the first render.
    @usableFromInline
    @exclusivity(unchecked)
    var deliveredVersion: UInt64 = 0

    /// Borrows `target` and `owner`: taking them owned would end in a release of each, which for objects with
    /// weak references is the runtime's slow path.
    @usableFromInline
    init(
        target: borrowing AnyObject,
        owner: borrowing ViewModel<State>,
        key: ObjectIdentifier? = nil,
        receive: @escaping @Sendable (AnyObject, State) -> Void
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

    /// Hands `state` to a live, subscribed target that has not seen it yet.
    ///
    /// - Returns: `false` when the target is deallocated, so the caller can prune it.
    @inlinable
    func deliver(_ state: State, version: UInt64, isTracing: Bool) -> Bool {
        guard let target else { return false }
        guard deliveredVersion < version, !isCancelled.load(ordering: .acquiring) else { return true }
        deliveredVersion = version
        if isTracing { Trace.record(.delivered(to: String(describing: type(of: target))), about: owner ?? target) }
        receive(target, state)
        return true
    }

    /// Stops deliveries; called by the subscriber list, under the model's lock, when it lets go of this entry.
    @inlinable
    func markCancelled() {
        isCancelled.store(true, ordering: .releasing)
    }

    override func cancel() {
        markCancelled()
        owner?.remove(self)
    }
}
