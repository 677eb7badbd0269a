/// The subscribers of one view model, keyed by the identity of their targets (see `SubscriptionRecord.key`).
///
/// Zero or one subscriber needs no collection. Many keep an array to deliver from and a dictionary from
/// identity to position, so subscribing and unsubscribing stay O(1) at any size (an unsubscribe moves the last
/// entry into the freed slot, so the order among subscribers is not kept). A copy of the list is a cheap
/// snapshot of one word, which a write copies under the lock and hands to the deliverer in a register: the
/// many-subscriber storage is boxed (see `ManySubscribers`). Deliveries iterate a snapshot outside the lock, and
/// a later change copies the storage only if a snapshot is still alive.
///
/// Every change that lets go of entries moves them into `released`, which the caller drops only after the
/// model's lock is released: dropping an entry can run a `deinit` (see `ReleasedSubscribers`).
@usableFromInline
enum SubscriberList<State: ViewState>: Sendable {
    case empty
    case single(SubscriptionRecord<State>)
    case many(ManySubscribers<State>)

    @inlinable
    var isEmpty: Bool {
        if case .empty = self { return true }
        return false
    }

    /// The number of subscriptions whose target is still alive and that nobody ended.
    @inlinable
    var liveCount: Int {
        switch self {
        case .empty: 0
        case .single(let subscriber): subscriber.isLive ? 1 : 0
        case .many(let many): many.entries.reduce(0) { $0 + ($1.isLive ? 1 : 0) }
        }
    }

    /// Adds `subscriber` under its key. An entry under the same key whose target is dead (a new object at a
    /// reused address) is always replaced; a live one only if `replacingLive` is set.
    ///
    /// - Returns: The live subscription that was kept instead of `subscriber`, or `nil` if `subscriber` was
    ///   added.
    @inlinable
    mutating func insert(
        _ subscriber: SubscriptionRecord<State>,
        replacingLive: Bool,
        released: inout ReleasedSubscribers<State>
    ) -> SubscriptionRecord<State>? {
        switch self {
        case .empty:
            self = .single(subscriber)
        case .single(let existing):
            if existing.key == subscriber.key {
                if existing.target != nil && !replacingLive { return existing }
                existing.markCancelled()
                released.append(existing)
                self = .single(subscriber)
            } else if existing.target == nil {
                released.append(existing)
                self = .single(subscriber)
            } else {
                self = .many(ManySubscribers(first: existing, second: subscriber))
            }
        case .many(var many):
            self = .empty  // drop the enum's reference so that the box is unique unless a snapshot holds it
            ManySubscribers.makeUnique(&many)
            defer { self = .many(many) }
            // One hash in the common case: claim the next position, and give it back if the key was there.
            if let index = many.positions.updateValue(many.entries.count, forKey: subscriber.key) {
                many.positions[subscriber.key] = index
                if many.entries[index].target != nil && !replacingLive {
                    return many.entries[index]
                }
                many.entries[index].markCancelled()
                released.append(many.entries[index])
                many.entries[index] = subscriber
            } else {
                if many.entries.count >= many.sweepAt {
                    Self.removeDead(from: &many.entries, positions: &many.positions, released: &released)
                    many.sweepAt = Swift.max(16, many.entries.count * 2)
                    many.positions[subscriber.key] = many.entries.count
                }
                many.entries.append(subscriber)
            }
        }
        return nil
    }

    /// Removes the subscription made under the identity of `target`, if any.
    ///
    /// The key alone decides: a live entry under it can only be `target`'s, since every key is the identity of an
    /// object that lives as long as its entry (the target, or the distinct key object of a projection) except a
    /// dead target's, and dropping a dead target's entry is what pruning would do anyway.
    @inlinable
    mutating func remove(target: AnyObject, released: inout ReleasedSubscribers<State>) {
        remove(key: ObjectIdentifier(target), released: &released) { _ in true }
    }

    /// Removes `subscriber` itself, and not a later subscription of the same target.
    @inlinable
    mutating func remove(_ subscriber: SubscriptionRecord<State>, released: inout ReleasedSubscribers<State>) {
        remove(key: subscriber.key, released: &released) { $0 === subscriber }
    }

    /// Removes every subscription whose target is `target`, whatever its key.
    ///
    /// - Complexity: O(*n*) in the number of subscriptions.
    @inlinable
    mutating func removeAll(target: AnyObject, released: inout ReleasedSubscribers<State>) {
        switch self {
        case .empty:
            return
        case .single(let existing):
            guard existing.target === target else { return }
            existing.markCancelled()
            released.append(existing)
            self = .empty
        case .many(var many):
            guard many.entries.contains(where: { $0.target === target }) else { return }
            self = .empty
            ManySubscribers.makeUnique(&many)
            many.entries.removeAll { entry in
                guard entry.target === target else { return false }
                entry.markCancelled()
                released.append(entry)
                return true
            }
            Self.reindex(many.entries, into: &many.positions)
            self = many.entries.isEmpty ? .empty : .many(many)
        }
    }

    @inlinable
    mutating func remove(
        key: ObjectIdentifier,
        released: inout ReleasedSubscribers<State>,
        where matches: (SubscriptionRecord<State>) -> Bool
    ) {
        switch self {
        case .empty:
            return
        case .single(let existing):
            guard existing.key == key, matches(existing) else { return }
            existing.markCancelled()
            released.append(existing)
            self = .empty
        case .many(var many):
            self = .empty  // drop the enum's reference so that the box is unique unless a snapshot holds it
            ManySubscribers.makeUnique(&many)
            // One hash in the common case: take the key out, and put it back if its entry is not the one.
            guard let index = many.positions.removeValue(forKey: key) else {
                self = .many(many)
                return
            }
            guard matches(many.entries[index]) else {
                many.positions[key] = index
                self = .many(many)
                return
            }
            let removed = Self.takeOut(at: index, of: &many.entries, positions: &many.positions)
            removed.markCancelled()
            released.append(removed)
            self = many.entries.isEmpty ? .empty : .many(many)
        }
    }

    /// Takes the entry at `index` out of `entries`, filling its slot with the last entry so that removing stays
    /// O(1). The entry moves out rather than being copied, which spares a retain and a release.
    @inlinable
    static func takeOut(
        at index: Int, of entries: inout ContiguousArray<SubscriptionRecord<State>>,
        positions: inout [ObjectIdentifier: Int]
    ) -> SubscriptionRecord<State> {
        var removed = entries.removeLast()
        if index < entries.count {
            swap(&removed, &entries[index])
            positions[entries[index].key] = index
        }
        return removed
    }

    /// Drops subscribers whose targets are deallocated.
    @inlinable
    mutating func removeDeadSubscribers(released: inout ReleasedSubscribers<State>) {
        switch self {
        case .empty:
            return
        case .single(let existing):
            guard existing.target == nil else { return }
            released.append(existing)
            self = .empty
        case .many(var many):
            self = .empty
            ManySubscribers.makeUnique(&many)
            Self.removeDead(from: &many.entries, positions: &many.positions, released: &released)
            self = many.entries.isEmpty ? .empty : .many(many)
        }
    }

    @inlinable
    static func removeDead(
        from entries: inout ContiguousArray<SubscriptionRecord<State>>,
        positions: inout [ObjectIdentifier: Int],
        released: inout ReleasedSubscribers<State>
    ) {
        entries.removeAll { entry in
            guard entry.target == nil else { return false }
            released.append(entry)
            return true
        }
        reindex(entries, into: &positions)
    }

    @inlinable
    static func reindex(
        _ entries: ContiguousArray<SubscriptionRecord<State>>, into positions: inout [ObjectIdentifier: Int]
    ) {
        positions.removeAll(keepingCapacity: true)
        for (index, subscriber) in entries.enumerated() {
            positions[subscriber.key] = index
        }
    }

    /// Offers `state` to every subscriber of this snapshot, in order.
    ///
    /// - Parameter isTracing: Whether to report each delivery to the trace; read once per round by the caller.
    /// - Returns: `true` when a deallocated target was met and the list wants pruning.
    @inlinable
    func deliver(_ state: State, version: UInt64, on thread: UInt, isTracing: Bool) -> Bool {
        switch self {
        case .empty:
            return false
        case .single(let subscriber):
            return !subscriber.deliver(state, version: version, on: thread, isTracing: isTracing)
        case .many(let many):
            var sawDead = false
            for subscriber in many.entries
            where !subscriber.deliver(state, version: version, on: thread, isTracing: isTracing) {
                sawDead = true
            }
            return sawDead
        }
    }
}

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

/// Subscriptions that the subscriber list let go of under the model's lock, carried out of the critical
/// section so that they are released after the lock is.
///
/// Releasing an entry can run user code: its handler closure may hold the last reference to an object whose
/// `deinit` subscribes, writes or cancels on the same model, and would deadlock on its lock. One entry needs no
/// collection, so the common removals allocate nothing, and no removal costs only an empty case.
@usableFromInline
enum ReleasedSubscribers<State: ViewState> {
    case none
    case one(SubscriptionRecord<State>)
    case many(ContiguousArray<SubscriptionRecord<State>>)

    @inlinable
    var isEmpty: Bool {
        if case .none = self { return true }
        return false
    }

    /// Keeps `subscriber` until these entries are settled.
    @inlinable
    mutating func append(_ subscriber: consuming SubscriptionRecord<State>) {
        switch consume self {
        case .none:
            self = .one(subscriber)
        case .one(let first):
            self = .many([first, subscriber])
        case .many(var entries):
            entries.append(subscriber)
            self = .many(entries)
        }
    }

    /// Takes over the entries of `other`, leaving it empty.
    @inlinable
    mutating func take(_ other: inout Self) {
        switch other {
        case .none:
            return
        case .one(let subscriber):
            append(subscriber)
        case .many(let entries):
            for subscriber in entries { append(subscriber) }
        }
        other = .none
    }

    /// Calls `body` with each entry.
    @inlinable
    borrowing func forEach(_ body: (SubscriptionRecord<State>) -> Void) {
        switch self {
        case .none:
            return
        case .one(let subscriber):
            body(subscriber)
        case .many(let entries):
            for subscriber in entries { body(subscriber) }
        }
    }

    /// Whether a thread holds the call slot of one of these entries.
    @inlinable
    var isCalled: Bool {
        switch self {
        case .none: false
        case .one(let subscriber): subscriber.slot.holder != 0
        case .many(let entries): entries.contains { $0.slot.holder != 0 }
        }
    }

    /// Waits for the calls of these subscriptions that other threads are running (when this thread may wait;
    /// see `SubscriptionRecord.waitForCallToEnd`); the entries go when the caller drops these. Call it with no lock
    /// held. Borrowing, so that the one entry of the common case is not retained for the wait.
    @inlinable
    borrowing func settle() {
        forEach { $0.waitForCallToEnd() }
    }
}
