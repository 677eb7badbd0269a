public import Synchronization

/// One subscription of one object (a view or a view model) to one view model.
///
/// The object is held weakly and never reassigned, so any thread may read it. `deliveredVersion` belongs to
/// the model's single active deliverer; handing that role from thread to thread orders the accesses (see
/// `ViewModel+Delivery.swift`).
@usableFromInline
final class Subscriber<State>: @unchecked Sendable {
    /// The object that receives states. `nil` once it is deallocated.
    @usableFromInline
    weak let target: AnyObject?

    /// The identity the subscription was made under; stays valid after the target dies.
    @usableFromInline
    let key: ObjectIdentifier

    @usableFromInline
    let receive: (AnyObject, State) -> Void

    /// The version of the last state handed to `receive`; 0 before the first render.
    @usableFromInline
    @exclusivity(unchecked)
    var deliveredVersion: UInt64 = 0

    @usableFromInline
    let isCancelled = Atomic<Bool>(false)

    @usableFromInline
    init(target: AnyObject, receive: @escaping (AnyObject, State) -> Void) {
        self.target = target
        self.key = ObjectIdentifier(target)
        self.receive = receive
    }

    /// Hands `state` to a live, subscribed target that has not seen it yet.
    ///
    /// - Returns: `false` when the target is deallocated, so the caller can prune it.
    @inlinable
    func deliver(_ state: State, version: UInt64) -> Bool {
        guard let target else { return false }
        guard deliveredVersion < version, !isCancelled.load(ordering: .acquiring) else { return true }
        deliveredVersion = version
        receive(target, state)
        return true
    }

    @inlinable
    func cancel() {
        isCancelled.store(true, ordering: .releasing)
    }
}
