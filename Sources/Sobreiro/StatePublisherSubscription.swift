#if canImport(Combine)
    package import Combine

    /// One subscriber's subscription to a ``StatePublisher``: the demand it requested, the latest state it has not
    /// sent, and the model's subscription that feeds it.
    ///
    /// The model delivers to it as to any follower, which it is, held weakly. A state that arrives while the demand
    /// is zero, or while another thread is sending, replaces the one waiting, so only the latest waits. Sending is
    /// serialized: the thread that finds demand and nobody sending claims `slot`, then keeps sending until nothing
    /// it may send is left, picking up what other threads stored or requested meanwhile. Every decision is taken
    /// under `lock`, and the subscriber is called only after unlocking, as are `==` and the `deinit`s of whatever
    /// this lets go: they are the user's code.
    ///
    /// Generic over the values only, with the subscriber type-erased, so that the model's handler, which is
    /// `@Sendable`, can name this type.
    package final class StatePublisherSubscription<Output: Equatable & Sendable>: Combine.Subscription,
        @unchecked Sendable
    {
        typealias Downstream = AnySubscriber<Output, Never>

        /// Guards every field below but `lastSent`.
        private let lock = Lock()

        /// The subscriber; `nil` once cancelled.
        private var downstream: Downstream?

        /// The model or projection, kept alive until cancelled.
        private var source: (any AnyObject & Sendable)?

        /// The model's subscription that delivers here.
        private var subscription: StateSubscription?

        /// How many more values the subscriber requested.
        private var demand = Subscribers.Demand.none

        /// The latest state that arrived and has not been sent.
        private var waiting: Output?

        /// Whether a thread owns `slot` and sends.
        private var isSending = false

        /// The thread that sends now; a cancel waits for its call of the subscriber.
        private let slot = CallSlot()

        /// The last value sent, so that the next one is never equal to it. Owned by the thread that owns `slot`.
        private var lastSent: Output?

        init(downstream: Downstream, source: any AnyObject & Sendable) {
            self.downstream = downstream
            self.source = source
        }

        deinit {
            // The subscriber let this go without cancelling: the model's subscription ends too.
            subscription?.cancel()
        }

        /// Keeps the model's subscription, to end it on cancel.
        func keep(_ subscription: StateSubscription) {
            let isCancelled = lock.withLock {
                self.subscription = subscription
                return downstream == nil
            }
            if isCancelled { subscription.cancel() }
        }

        /// Whether a thread waits in ``cancel()`` for a call of the subscriber that another thread is running, in a
        /// delivery of the model or in a send of its own. Lets tests release that call only once the cancel is
        /// known to wait for it.
        package var isWaitedForByCancel: Bool {
            let subscription = lock.withLock { self.subscription }
            return slot.isWaitedFor || subscription?.isWaitedForByCancel == true
        }

        /// Sends `value` if the subscriber wants one and nobody is sending, or keeps it in place of the waiting one.
        /// Called by the model's deliverer.
        func receive(_ value: Output) {
            // Swapped in, so that the value it replaces is released after unlocking.
            var replaced: Output? = value
            let downstream = lock.withLock { () -> Downstream? in
                guard let downstream = self.downstream else { return nil }
                guard !isSending, demand > 0 else {
                    swap(&waiting, &replaced)
                    return nil
                }
                startSending()
                return downstream
            }
            replaced = nil
            if let downstream { send(value, to: downstream) }
        }

        /// Adds `demand`, and sends the waiting state if nobody is sending.
        package func request(_ demand: Subscribers.Demand) {
            precondition(demand > 0, "request a demand of at least one value: Combine forbids requesting .none")
            let next = lock.withLock { () -> (Downstream, Output)? in
                guard let downstream else { return nil }
                self.demand += demand
                guard !isSending, let value = waiting.take() else { return nil }
                startSending()
                return (downstream, value)
            }
            if let (downstream, value) = next { send(value, to: downstream) }
        }

        /// Ends the model's subscription and lets go of the subscriber and the model. Once this returns, the
        /// subscriber receives nothing more; see ``StatePublisher`` for the cases where that wait is skipped.
        package func cancel() {
            // The model's subscription stays, ended, so that `isWaitedForByCancel` can still ask it.
            typealias Released = (Downstream, (any AnyObject & Sendable)?, Output?)
            let (released, modelSubscription) = lock.withLock { () -> (Released?, StateSubscription?) in
                guard let downstream else { return (nil, nil) }
                defer {
                    self.downstream = nil
                    source = nil
                }
                return ((downstream, source, waiting.take()), subscription)
            }
            guard let released else { return }
            modelSubscription?.cancel()
            slot.waitForCallToEnd()
            withExtendedLifetime(released) {}  // the subscriber, the model and a waiting state, after unlocking
        }

        /// Claims `slot` for this thread and consumes one unit of demand. Called under `lock`.
        private func startSending() {
            isSending = true
            slot.hold(for: ThreadID.current)
            demand -= 1
        }

        /// Sends `first`, claimed with one unit of demand, then whatever arrives while the subscriber still wants
        /// more, and then gives `slot` up.
        private func send(_ first: Output, to downstream: Downstream) {
            var next = first
            while true {
                var more = Subscribers.Demand.max(1)  // given back if `next` repeats the last value
                if next != lastSent {
                    lastSent = next
                    more = downstream.receive(next)
                }
                var wasWaitedFor = false
                let following = lock.withLock { () -> Output? in
                    self.demand += more
                    if self.downstream != nil, demand > 0, let value = waiting.take() {
                        demand -= 1
                        return value
                    }
                    isSending = false
                    wasWaitedFor = slot.giveUp()
                    return nil
                }
                guard let following else {
                    if wasWaitedFor { CallWaiting.wakeAll() }
                    return
                }
                next = following
            }
        }
    }
#endif
