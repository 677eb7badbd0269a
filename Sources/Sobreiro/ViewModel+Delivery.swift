public import SobreiroPrimitives
public import Synchronization

// The delivery protocol. Delivery runs outside the lock, by one thread at a time per model: the deliverer. Its role
// is one `DeliveryWord`, and every transition of the role is below:
// - claim (under the lock): a thread that commits a change, or that subscribes from inside a delivery, asks for a
//   round. If nobody delivers, it becomes the deliverer and takes the round itself; otherwise the active deliverer
//   will take it.
// - take a round (under the lock): the deliverer copies the state, its version and the subscribers, and remembers
//   the word it saw.
// - resign (without the lock): the deliverer gives up its role if the word is still the one of its round, that is
//   if nobody asked for a round since; otherwise it takes the next round.

/// Whether a thread holds the deliverer role of a model, and how many rounds were asked for: one word, so that the
/// deliverer can resign without the lock, by a compare-and-exchange that fails if a round was asked for meanwhile.
@frozen
@usableFromInline
struct DeliveryWord: RawRepresentable, AtomicRepresentable, Equatable, Sendable {
    /// Bit 0: `isActive`; the bits above: `rounds`.
    @usableFromInline
    var rawValue: UInt64

    @inlinable
    init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Nobody delivers, and no round was ever asked for.
    @inlinable
    static var idle: DeliveryWord { DeliveryWord(rawValue: 0) }

    /// Whether a deliverer holds the role.
    @inlinable
    var isActive: Bool { rawValue & 1 != 0 }

    /// The rounds asked for since the model was created, wrapping around.
    @inlinable
    var rounds: UInt64 { rawValue >> 1 }

    /// This word after one more round is asked for: a deliverer is active, either already or the asking thread.
    @inlinable
    var claimed: DeliveryWord { DeliveryWord(rawValue: (rawValue &+ 2) | 1) }

    /// This word after its deliverer resigned.
    @inlinable
    var resigned: DeliveryWord { DeliveryWord(rawValue: rawValue & ~1) }
}

/// How `subscribe` renders the first state into a subscription: the outcomes of ``ViewModel/firstRender(of:isNew:on:)``.
@usableFromInline
enum FirstRender<State: ViewState> {
    /// The subscribing thread delivers this model further up its stack: the round it asked for renders the entry
    /// right after the current call, so that a view is never entered from inside its own render.
    case inNextRound
    /// The subscribing thread runs a transaction of this model: the entry renders the committed state when it
    /// unlocks, never a draft.
    case whenTransactionEnds
    /// A live entry under the same key was kept: it is caught up after any call another thread runs for it.
    case afterRunningCall
    /// The subscribing thread owns the new entry's calls and renders `state` now, then what was committed meanwhile;
    /// after the call that another thread still runs for `after`, an entry of the same target let go of (see
    /// `handedOver(_:after:)`).
    case now(state: State, version: UInt64, after: SubscriptionRecord<State>?)
}

extension ViewModel {
    /// One state to deliver to one snapshot of the subscribers.
    @usableFromInline
    struct Round: Sendable {
        @usableFromInline let state: State
        @usableFromInline let version: UInt64
        @usableFromInline let subscribers: SubscriberList<State>
        /// The delivery word when the round was taken: resigning succeeds only if it is still the same.
        @usableFromInline let word: DeliveryWord

        @inlinable
        init(state: State, version: UInt64, subscribers: SubscriberList<State>, word: DeliveryWord) {
            self.state = state
            self.version = version
            self.subscribers = subscribers
            self.word = word
        }
    }

    /// Claims the deliverer role for this thread, or asks the active deliverer for one more round. Called under
    /// the lock.
    ///
    /// - Returns: The round this thread must deliver once it unlocks, if it became the deliverer; `nil` if the active
    ///   deliverer (maybe this thread, further up its stack) takes the new round instead.
    @inlinable
    @inline(__always)
    final func claimDelivery(on thread: UInt) -> Round? {
        guard requestRound(on: thread) else {
            // A deliverer is active. If it is another thread, which a render may hold up for long, a write on the main
            // actor still brings the main-actor followers up to date itself.
            if _slowPath(MainActorFollowers.exist.load(ordering: .relaxed)), !isDelivering(on: thread) {
                catchUpMainActorFollowersWhenTransactionEnds()
            }
            return nil
        }
        return takeRound()
    }

    /// Asks for a delivery round. Called under the lock.
    ///
    /// - Returns: `true` if nobody was delivering: the calling thread is now the deliverer and must take the round.
    @inlinable
    @inline(__always)
    final func requestRound(on thread: UInt) -> Bool {
        lock.assertHeld()
        // Acquiring: a previous deliverer's release makes its writes to subscribers visible to this one.
        var expected = delivery.load(ordering: .acquiring)
        if !expected.isActive {
            // Nobody delivers, and only lock holders (this thread, now) could start: a plain store suffices.
            delivery.store(expected.claimed, ordering: .relaxed)
            deliveringThread.store(thread, ordering: .relaxed)
            return true
        }
        // A deliverer is active and may resign at any moment: ask atomically, and take over if it resigned first.
        while true {
            let (exchanged, original) = delivery.compareExchange(
                expected: expected,
                desired: expected.claimed,
                successOrdering: .acquiringAndReleasing,
                failureOrdering: .relaxed
            )
            if exchanged { break }
            expected = original
        }
        guard !expected.isActive else { return false }
        deliveringThread.store(thread, ordering: .relaxed)
        return true
    }

    /// The round to deliver now. Called under the lock, by the deliverer.
    @inlinable
    final func takeRound() -> Round {
        lock.assertHeld()
        return Round(
            state: current, version: version, subscribers: subscribers, word: delivery.load(ordering: .relaxed))
    }

    /// Delivers `first`, then further rounds while more are asked for, then resigns. Called by the deliverer, without
    /// the lock; `isTracing` is the trace's switch as the caller read it.
    ///
    /// Inlined into the write that took the round: a round for one subscriber, the common case, is delivered and
    /// resigned from that write's frame. Every other round goes through ``deliverRounds(_:on:isTracing:)``.
    @inlinable
    @inline(__always)
    final func deliver(_ first: consuming Round, on thread: UInt, isTracing: Bool) {
        guard case .single(let subscriber) = first.subscribers else {
            return deliverRounds(first, on: thread, isTracing: isTracing)
        }
        let word = first.word
        let isAlive = subscriber.deliver(first.state, version: first.version, on: thread, isTracing: isTracing)
        _ = consume first
        if !isAlive { removeDeadSubscribers() }
        if !resign(after: word, on: thread) { deliverNextRounds(on: thread, isTracing: isTracing) }
    }

    /// Delivers `first`, then further rounds while more are asked for, then resigns. Called by the deliverer, without
    /// the lock.
    @inlinable
    @inline(never)
    final func deliverRounds(_ first: consuming Round, on thread: UInt, isTracing: Bool) {
        var round = first
        while true {
            let word = round.word
            let sawDead = round.subscribers.deliver(
                round.state, version: round.version, on: thread, isTracing: isTracing)
            // The snapshot of the list goes before pruning, so that pruning does not copy the list.
            _ = consume round
            if sawDead { removeDeadSubscribers() }
            if resign(after: word, on: thread) { return }
            round = withModelLock { takeRound() }
        }
    }

    /// Takes the round asked for since the deliverer's last one, and delivers it and any further ones. Called by the
    /// deliverer, without the lock, once resigning failed.
    @inlinable
    @inline(never)
    final func deliverNextRounds(on thread: UInt, isTracing: Bool) {
        deliverRounds(withModelLock { takeRound() }, on: thread, isTracing: isTracing)
    }

    /// Resigns the deliverer role, unless a round was asked for since the one taken at `word`. Called by the
    /// deliverer, without the lock.
    ///
    /// - Returns: `false` when a round was asked for: the calling thread is still the deliverer, and must take it.
    @inlinable
    @inline(__always)
    final func resign(after word: DeliveryWord, on thread: UInt) -> Bool {
        deliveringThread.store(0, ordering: .relaxed)
        let (resigned, _) = delivery.compareExchange(
            expected: word,
            desired: word.resigned,
            successOrdering: .acquiringAndReleasing,
            failureOrdering: .acquiring
        )
        if !resigned { deliveringThread.store(thread, ordering: .relaxed) }
        return resigned
    }

    /// How a new subscription gets its first state. Called under the lock, by `add`, once the entry is in the list.
    ///
    /// - Parameters:
    ///   - entry: The subscription now in place: the new one, or a live one kept under the same key.
    ///   - isNew: Whether `entry` is the new subscription.
    @inlinable
    @inline(__always)
    final func firstRender(of entry: SubscriptionRecord<State>, isNew: Bool, on thread: UInt) -> FirstRender<State> {
        lock.assertHeld()
        if isDelivering(on: thread) {
            // The deliverer is further up this thread's stack: the round asked for here renders the entry, unless
            // another thread still calls the entry of the same target let go of; that thread renders it then.
            if isNew, !leaving.isEmpty, let predecessor = callInProgress(for: entry.key, on: thread) {
                _ = handOverUnderLock(entry, after: predecessor)
            }
            let isNowDeliverer = requestRound(on: thread)
            assert(!isNowDeliverer, "a thread that delivers holds the deliverer role")
            return .inNextRound
        }
        let predecessor = isNew && !leaving.isEmpty ? callInProgress(for: entry.key, on: thread) : nil
        if transactionOwner.load(ordering: .relaxed) == thread {
            renderWhenTransactionEnds(entry, after: predecessor)
            return .whenTransactionEnds
        }
        guard isNew else { return .afterRunningCall }
        // Claimed before any deliverer can see the entry, which it only sees in a snapshot taken under the lock.
        entry.slot.hold(for: thread)
        entry.deliveredVersion = version
        return .now(state: current, version: version, after: predecessor)
    }

    // A target subscribed again while a thread still calls the entry it had (removed, or replaced) is never called
    // by two threads at once, nor handed an older state after a newer one: the list keeps an entry let go of during
    // a call in `leaving` until that call ends, with the call marked as waited for, so that the thread ending it
    // comes back here (`forgetFinishedCalls`). The new entry, which its subscribing thread owns from the start,
    // renders its first state after that call: the subscribing thread waits for it, or, where that wait could never
    // end (the call waits for the subscribing thread), hands the new entry over to the thread ending the call.

    /// An entry under `key` that the list let go of while another thread called it, if that call still runs.
    /// Called under the lock.
    @usableFromInline
    final func callInProgress(for key: ObjectIdentifier, on thread: UInt) -> SubscriptionRecord<State>? {
        leaving.first { entry in
            let holder = entry.slot.holder
            return entry.key == key && holder != 0 && holder != thread
        }
    }

    /// Keeps in `leaving` the entries of `released` that a thread is calling, marking those calls as waited for,
    /// and moves the entries of `leaving` whose calls are over into `released`, which the caller lets go of after
    /// unlocking. Called under the lock.
    ///
    /// - Returns: Whether an entry joined `leaving`: the caller forgets it once its call is over.
    @usableFromInline
    final func keepCallsInProgress(of released: inout ReleasedSubscribers<State>) -> Bool {
        var over = ReleasedSubscribers<State>.none
        leaving.removeAll { entry in
            // Marked again: a call that began since the entry left (one that finds it ended) reports its end too.
            guard !entry.slot.markWaitedFor() else { return false }
            over.append(entry)
            return true
        }
        var joined = false
        released.forEach { entry in
            guard !leaving.contains(where: { $0 === entry }), entry.slot.markWaitedFor() else { return }
            leaving.append(entry)
            joined = true
        }
        released.take(&over)
        return joined
    }

    /// Waits until the call that another thread runs for `predecessor`, an entry of the same target let go of, has
    /// returned, before this thread renders the first states into `successor`, which it owns. Where waiting for that
    /// call could never end, hands `successor` over to the thread that ends it. Called with no lock held.
    ///
    /// - Returns: `true` if `successor` was handed over: the caller renders nothing.
    @inlinable
    final func handedOver(_ successor: SubscriptionRecord<State>, after predecessor: SubscriptionRecord<State>?) -> Bool
    {
        guard let predecessor, !predecessor.slot.waitForRunningCall() else { return false }
        return handOver(successor, after: predecessor)
    }

    /// Hands `successor`, which this thread owns, over to the thread running `predecessor`'s call.
    ///
    /// - Returns: `false` if that call is over: this thread renders `successor` itself.
    @usableFromInline
    final func handOver(_ successor: SubscriptionRecord<State>, after predecessor: SubscriptionRecord<State>) -> Bool {
        withLockUnlessInTransaction { handOverUnderLock(successor, after: predecessor) }
    }

    /// ``handOver(_:after:)``, called under the lock.
    @usableFromInline
    final func handOverUnderLock(
        _ successor: SubscriptionRecord<State>, after predecessor: SubscriptionRecord<State>
    ) -> Bool {
        let holder = predecessor.slot.holder
        guard holder != 0, predecessor.slot.markWaitedFor() else { return false }
        // Held in the name of the thread that will render it, so that a cancel meanwhile waits for that thread; a
        // thread that waits for the successor already stays marked, so that the render's end wakes it.
        successor.slot.rehold(for: holder)
        successor.deliveredVersion = 0
        handOvers.append((predecessor, successor))
        return true
    }

    /// Lets go of the entries of `leaving` whose calls are over, and renders the subscriptions handed over after
    /// them. Called with no lock held, by a thread that ended a call that others wait for, or that let go of an entry
    /// under call.
    @usableFromInline
    final func forgetFinishedCalls() {
        var over = ReleasedSubscribers<State>.none
        let thread = currentThread
        let successors = withLockUnlessInTransaction { () -> ContiguousArray<SubscriptionRecord<State>> in
            _ = keepCallsInProgress(of: &over)
            // A thread inside a transaction of this model renders nothing: the one ending the call will.
            guard !handOvers.isEmpty, transactionOwner.load(ordering: .relaxed) != thread else { return [] }
            var ready: ContiguousArray<SubscriptionRecord<State>> = []
            handOvers.removeAll { pair in
                // Marked again: a call that began since (one that finds the entry ended) reports its end too.
                guard !pair.predecessor.slot.markWaitedFor() else { return false }
                pair.successor.slot.rehold(for: thread)
                ready.append(pair.successor)
                over.append(pair.predecessor)
                return true
            }
            return ready
        }
        _ = consume over
        for successor in successors { catchUp(successor, isClaimed: true) }
    }

    /// Drops the entries of deallocated subscribers, and lets go of them after unlocking.
    @usableFromInline
    final func removeDeadSubscribers() {
        var released = ReleasedSubscribers<State>.none
        withModelLock { subscribers.removeDeadSubscribers(released: &released) }
        released.settle()
    }

    /// Whether this thread is delivering for this model, further up its stack.
    @inlinable
    final func isDelivering(on thread: UInt) -> Bool {
        deliveringThread.load(ordering: .relaxed) == thread
    }

    /// Whether the calling thread delivers this model's states further up its stack, directly or through other
    /// models: a view subscribed now renders right after the current call rather than before `subscribe` returns.
    package final var isDeliveringOnCurrentThread: Bool {
        isDelivering(on: ThreadID.current)
    }
}

// MARK: - The subscriber list that rounds are delivered to

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

    /// The number of subscriptions whose target is still alive and that nobody ended; the targets read go into
    /// `parked` (see `SubscriptionRecord.targetIdentity(parking:)`).
    @inlinable
    func liveCount(parking parked: inout ReleasedSubscribers<State>) -> Int {
        switch self {
        case .empty: 0
        case .single(let subscriber): subscriber.isLive(parking: &parked) ? 1 : 0
        case .many(let many): many.entries.reduce(0) { $0 + ($1.isLive(parking: &parked) ? 1 : 0) }
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
                if existing.targetIdentity(parking: &released) != nil && !replacingLive { return existing }
                existing.markCancelled()
                released.append(existing)
                self = .single(subscriber)
            } else if existing.targetIdentity(parking: &released) == nil {
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
                if many.entries[index].targetIdentity(parking: &released) != nil && !replacingLive {
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
        let identity = ObjectIdentifier(target)
        switch self {
        case .empty:
            return
        case .single(let existing):
            guard existing.targetIdentity(parking: &released) == identity else { return }
            existing.markCancelled()
            released.append(existing)
            self = .empty
        case .many(var many):
            guard many.entries.contains(where: { $0.targetIdentity(parking: &released) == identity }) else { return }
            self = .empty
            ManySubscribers.makeUnique(&many)
            many.entries.removeAll { entry in
                guard entry.targetIdentity(parking: &released) == identity else { return false }
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
            guard existing.targetIdentity(parking: &released) == nil else { return }
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
            guard entry.targetIdentity(parking: &released) == nil else { return false }
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

/// The storage of `ReleasedSubscribers.many`: several entries, or targets read under the lock. Not generic, so
/// that carrying one costs no lookup of its type at run time; its entries are all subscription records of one model.
@usableFromInline
final class ReleasedObjects {
    @usableFromInline var entries: ContiguousArray<AnyObject>
    @usableFromInline var targets: ContiguousArray<AnyObject>

    @inlinable
    init(entries: ContiguousArray<AnyObject>, targets: ContiguousArray<AnyObject> = []) {
        self.entries = entries
        self.targets = targets
    }
}

/// Subscriptions that the subscriber list let go of under the model's lock, and targets it read there, carried out
/// of the critical section so that they are released after the lock is.
///
/// Releasing an entry can run user code: its handler closure may hold the last reference to an object whose
/// `deinit` subscribes, writes or cancels on the same model, and would deadlock on its lock. So can releasing a
/// target read through its weak reference (see `SubscriptionRecord.targetIdentity(parking:)`). One entry needs no
/// collection, so the common removals allocate nothing, and no removal costs only an empty case.
@usableFromInline
enum ReleasedSubscribers<State: ViewState> {
    case none
    case one(SubscriptionRecord<State>)
    /// Boxed, so that the carrier stays one word: a transaction keeps one, and a wider one costs every write.
    case many(ReleasedObjects)

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
            self = .many(ReleasedObjects(entries: [first, subscriber]))
        case .many(let many):
            many.entries.append(subscriber)
            self = .many(many)
        }
    }

    /// Keeps `target`, a strong reference read under the lock, until these entries are dropped.
    @inlinable
    mutating func park(_ target: AnyObject) {
        switch consume self {
        case .none:
            self = .many(ReleasedObjects(entries: [], targets: [target]))
        case .one(let first):
            self = .many(ReleasedObjects(entries: [first], targets: [target]))
        case .many(let many):
            many.targets.append(target)
            self = .many(many)
        }
    }

    /// Takes over the entries and targets of `other`, leaving it empty.
    @inlinable
    mutating func take(_ other: inout Self) {
        switch other {
        case .none:
            return
        case .one(let subscriber):
            append(subscriber)
        case .many(let many):
            for subscriber in many.entries { append(unsafeDowncast(subscriber, to: SubscriptionRecord<State>.self)) }
            for target in many.targets { park(target) }
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
        case .many(let many):
            for subscriber in many.entries { body(unsafeDowncast(subscriber, to: SubscriptionRecord<State>.self)) }
        }
    }

    /// Whether a thread holds the call slot of one of these entries.
    @inlinable
    var isCalled: Bool {
        switch self {
        case .none: false
        case .one(let subscriber): subscriber.slot.holder != 0
        case .many(let many):
            many.entries.contains { unsafeDowncast($0, to: SubscriptionRecord<State>.self).slot.holder != 0 }
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
