#if canImport(Combine)
    package import Combine
    import Sobreiro
    import SobreiroPrimitives

    /// One subscriber's subscription to a ``StatePublisher``: the demand it requested, the latest state it has not
    /// sent, and the model's subscription that feeds it.
    ///
    /// The model delivers to it as to any follower, which it is, held weakly: a subscriber that lets it go without
    /// cancelling ends the model's subscription as a deallocated view does. A state that arrives while the demand
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

        /// Guards the fields from `downstream` to `isSending`.
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

        /// Made by the subscribing thread, which owns `slot` until ``subscriberIsReady()``: no value is sent before
        /// the subscriber has received this subscription.
        init(downstream: Downstream, source: any AnyObject & Sendable) {
            self.downstream = downstream
            self.source = source
            claimSlot()
        }

        /// Keeps the model's subscription, to end it on cancel.
        func keep(_ subscription: StateSubscription) {
            let isCancelled = lock.withLock {
                self.subscription = subscription
                return downstream == nil
            }
            if isCancelled { subscription.cancel() }
        }

        /// Called by the subscribing thread once the subscriber has received this subscription: sends what it
        /// requested meanwhile, then lets other threads send.
        func subscriberIsReady() {
            sendWhileWanted(nil)
        }

        /// Whether a thread waits in ``cancel()`` for a call of the subscriber that another thread is running, in a
        /// delivery of the model or in a send of its own. Lets tests release that call only once the cancel is
        /// known to wait for it.
        package var isWaitedForByCancel: Bool {
            let subscription = lock.withLock { self.subscription }
            return slot.isWaitedFor || subscription?.isWaitedForByCancel == true
        }

        /// Keeps `value` in place of the waiting one, and sends it if the subscriber wants one and nobody is
        /// sending. Called by the model's deliverer.
        func receive(_ value: Output) {
            // Swapped in, so that the value it replaces is released after unlocking.
            var replaced: Output? = value
            let first = lock.withLock { () -> (Downstream, Output)? in
                guard downstream != nil else { return nil }
                swap(&waiting, &replaced)
                guard !isSending, let first = takeNext() else { return nil }
                claimSlot()
                return first
            }
            replaced = nil
            if let first { sendWhileWanted(first) }
        }

        /// Adds `demand`, and sends the waiting state if nobody is sending.
        package func request(_ demand: Subscribers.Demand) {
            if demand <= 0 { fatalError("request a demand of at least one value: Combine forbids requesting .none") }
            let first = lock.withLock { () -> (Downstream, Output)? in
                guard downstream != nil else { return nil }
                self.demand += demand
                guard !isSending, let first = takeNext() else { return nil }
                claimSlot()
                return first
            }
            if let first { sendWhileWanted(first) }
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

        /// Marks this thread as the one that sends. Called under `lock`, or before anyone else can see this.
        private func claimSlot() {
            isSending = true
            slot.hold(for: ThreadID.current)
        }

        /// The waiting state, with one unit of demand for it, if the subscriber wants it. Called under `lock`.
        private func takeNext() -> (Downstream, Output)? {
            lock.assertHeld()
            guard let downstream, demand > 0, let value = waiting.take() else { return nil }
            demand -= 1
            return (downstream, value)
        }

        /// Sends `first`, then each state that arrives while the subscriber wants more, on the thread that owns
        /// `slot`; then gives `slot` up.
        private func sendWhileWanted(_ first: (Downstream, Output)?) {
            var next = first
            while true {
                var more = Subscribers.Demand.none
                if let (downstream, value) = next {
                    if value == lastSent {
                        more = .max(1)  // the unit taken for it, given back: it is not sent
                    } else if lock.withLock({ self.downstream == nil }) {
                        // `==` cancelled, on this thread, so `cancel()` did not wait: nothing goes out after it.
                        more = .none
                    } else {
                        lastSent = value
                        more = downstream.receive(value)
                    }
                }
                var wasWaitedFor = false
                next = lock.withLock { () -> (Downstream, Output)? in
                    demand += more
                    if let next = takeNext() { return next }
                    isSending = false
                    wasWaitedFor = slot.giveUp()
                    return nil
                }
                guard case .some = next else {
                    if wasWaitedFor { CallWaiting.wakeAll() }
                    return
                }
            }
        }
    }
#endif
