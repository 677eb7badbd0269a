import SobreiroPrimitives
public import Synchronization

// Delivery runs outside the lock, by one thread at a time per model: the deliverer. A thread that commits while
// nobody delivers becomes the deliverer; a thread that commits while somebody does only asks for another round.
// `deliveryRequests` holds both facts in one word, so the deliverer can give up its role without the lock:
// bit 0 is set while a deliverer is active, and the bits above count the rounds asked for. The deliverer
// remembers the word of the round it took; clearing bit 0 with a compare-and-exchange against that word
// succeeds only if nobody asked for a round since, and otherwise it takes the next round.

extension ViewModel {
    /// One state to deliver to one snapshot of the subscribers.
    @usableFromInline
    struct Round: Sendable {
        @usableFromInline let state: State
        @usableFromInline let version: UInt64
        @usableFromInline let subscribers: SubscriberList<State>
        /// `deliveryRequests` when the round was taken.
        @usableFromInline let requests: UInt64

        @inlinable
        init(state: State, version: UInt64, subscribers: SubscriberList<State>, requests: UInt64) {
            self.state = state
            self.version = version
            self.subscribers = subscribers
            self.requests = requests
        }
    }

    /// Asks for a delivery round. Called under the lock.
    ///
    /// - Returns: `true` if nobody was delivering, in which case the calling thread is now the deliverer and
    ///   must deliver `currentRound()`; `false` if the active deliverer will take another round.
    @inlinable
    @inline(__always)
    final func becomeDelivererOrRequestRound(on thread: UInt) -> Bool {
        // Acquiring: a previous deliverer's release makes its writes to subscribers visible to this one.
        var expected = deliveryRequests.load(ordering: .acquiring)
        if expected & 1 == 0 {
            // Nobody delivers, and only lock holders (this thread, now) could start: a plain store suffices.
            deliveryRequests.store((expected &+ 2) | 1, ordering: .relaxed)
            deliveringThread.store(thread, ordering: .relaxed)
            return true
        }
        // A deliverer is active and may give up its role at any moment: make the request atomically, and take
        // over if it gave up first.
        while true {
            let (exchanged, original) = deliveryRequests.compareExchange(
                expected: expected,
                desired: (expected &+ 2) | 1,
                successOrdering: .acquiringAndReleasing,
                failureOrdering: .relaxed
            )
            if exchanged { break }
            expected = original
        }
        guard expected & 1 == 0 else { return false }
        deliveringThread.store(thread, ordering: .relaxed)
        return true
    }

    /// The round to deliver now. Called under the lock, by the deliverer.
    @inlinable
    final func currentRound() -> Round {
        Round(
            state: current,
            version: version,
            subscribers: subscribers,
            requests: deliveryRequests.load(ordering: .relaxed)
        )
    }

    /// Delivers `first`, then further rounds while more are asked for, then gives up the deliverer role.
    /// Called by the deliverer, without the lock; `isTracing` is the trace's switch as the caller read it.
    @inlinable
    final func deliver(_ first: consuming Round, on thread: UInt, isTracing: Bool) {
        var round = first
        while true {
            if round.subscribers.deliver(round.state, version: round.version, on: thread, isTracing: isTracing) {
                // Release the snapshot first, so that pruning does not copy the list.
                round = Round(state: round.state, version: round.version, subscribers: .empty, requests: round.requests)
                var released = ReleasedSubscribers<State>.none
                withModelLock { subscribers.removeDeadSubscribers(released: &released) }
                released.settle()
            }
            deliveringThread.store(0, ordering: .relaxed)
            let (finished, _) = deliveryRequests.compareExchange(
                expected: round.requests,
                desired: round.requests & ~1,
                successOrdering: .acquiringAndReleasing,
                failureOrdering: .acquiring
            )
            if finished { return }
            deliveringThread.store(thread, ordering: .relaxed)
            round = withModelLock { currentRound() }
        }
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
