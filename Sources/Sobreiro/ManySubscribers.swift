/// The storage of a list of many subscribers, boxed so that the list stays one word. The list changes it in place
/// when nobody else holds it, and copies it first while a delivery still iterates a snapshot. Its fields are only
/// changed under the model's lock, by the one holder of the box, so their accesses go unchecked.
@usableFromInline
final class ManySubscribers<State: ViewState>: @unchecked Sendable {
    /// The entries to deliver to, in no particular order.
    @usableFromInline @exclusivity(unchecked) var entries: ContiguousArray<SubscriptionRecord<State>>
    /// The position of each entry in `entries`, by key.
    @usableFromInline @exclusivity(unchecked) var positions: [ObjectIdentifier: Int]
    /// The count at which adding an entry first drops the dead ones.
    @usableFromInline @exclusivity(unchecked) var sweepAt: Int

    @inlinable
    init(entries: ContiguousArray<SubscriptionRecord<State>>, positions: [ObjectIdentifier: Int], sweepAt: Int) {
        self.entries = entries
        self.positions = positions
        self.sweepAt = sweepAt
    }

    @inlinable
    convenience init(first: SubscriptionRecord<State>, second: SubscriptionRecord<State>) {
        self.init(entries: [first, second], positions: [first.key: 0, second.key: 1], sweepAt: 16)
    }

    /// Makes `many` the only reference to its storage, copying it if a snapshot still holds it.
    @inlinable
    static func makeUnique(_ many: inout ManySubscribers) {
        guard !isKnownUniquelyReferenced(&many) else { return }
        many = ManySubscribers(entries: many.entries, positions: many.positions, sweepAt: many.sweepAt)
    }
}
