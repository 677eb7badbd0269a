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
