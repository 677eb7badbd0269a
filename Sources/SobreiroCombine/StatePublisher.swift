#if canImport(Combine)
    public import Combine
    public import Sobreiro

    /// The states of a view model, or the values of a projection, as a Combine publisher that never fails.
    ///
    /// Get one from ``StateSource/publisher``, of a model or of a projection. Each subscriber gets a subscription of
    /// its own to the model: first the state current when it subscribes, then each committed change that differs
    /// from the previous state, in commit order, as the model delivers them to any subscriber (see
    /// the threading article of Sobreiro's documentation). It never sends two equal values in a row, and never an older value after a
    /// newer one.
    ///
    /// ```swift
    /// model.publisher
    ///     .map(\.title)
    ///     .removeDuplicates()
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { [weak self] title in self?.titleLabel.text = title }
    ///     .store(in: &cancellables)
    /// ```
    ///
    /// **Demand.** A subscription never sends more values than its subscriber requested. A state stream needs no
    /// backlog: while the demand is zero, the subscription keeps only the latest state it has not sent, replacing
    /// any older one, and sends it as soon as demand arrives. A slow subscriber therefore skips the states it had
    /// no demand for, receives the latest one next, and is never handed a stale one. `Subscribers.Sink` and
    /// `assign(to:on:)` request unlimited demand, so they see every change the model delivers.
    ///
    /// **Threads.** A value is sent on the thread that delivers it: the thread of the write that committed it; for the
    /// current state, the subscribing thread, once `receive(subscription:)` has returned; or, for a value that
    /// waited for demand, the thread that calls `request(_:)`. Add `receive(on:)` to move values to a queue or
    /// run loop of your choice. The subscriber is never called by two threads at once, and no lock of Sobreiro is
    /// held while it runs, so it may request, cancel, write to the model or subscribe from `receive(_:)`.
    ///
    /// **Lifetime.** The publisher holds its model strongly, as publishers of long-lived objects do, and so does
    /// each subscription, until it is cancelled. The model holds the subscription weakly: a subscriber that lets
    /// its subscription go without cancelling it ends it too. A subscription that stays open keeps its model
    /// alive, so a model must not store the cancellable of a pipeline that starts from its own publisher.
    ///
    /// **Cancellation.** `cancel()` ends the model's subscription, so ``ViewModel/subscriberCount`` drops, and
    /// lets go of the subscriber and the model. Once it returns, nothing is sent anymore, from any thread: a value
    /// that another thread is sending has been received by then. As for ``StateSubscription/cancel()``, that wait
    /// is skipped when it could never end, and a subscriber must not block on the thread that cancels it.
    public struct StatePublisher<Output: Equatable & Sendable>: Publisher, Sendable {
        /// Never fails: a model's state always has a value.
        public typealias Failure = Never

        /// Subscribes a follower to the model with a handler that receives the current value, then every new one.
        typealias Connect =
            @Sendable (_ follower: AnyObject, _ receive: @escaping @Sendable (AnyObject, Output) -> Void) ->
            StateSubscription

        /// The model or the projection whose values this publishes; each open subscription keeps it alive.
        let source: any AnyObject & Sendable

        let connect: Connect

        init(source: any AnyObject & Sendable, connect: @escaping Connect) {
            self.source = source
            self.connect = connect
        }

        /// Subscribes `subscriber` to the model: it is handed its subscription, then, as it requests them, the
        /// current state and each new one.
        ///
        /// - Parameter subscriber: The subscriber to attach.
        public func receive<Downstream: Combine.Subscriber>(subscriber: Downstream)
        where Downstream.Input == Output, Downstream.Failure == Never {
            let subscription = StatePublisherSubscription(downstream: AnySubscriber(subscriber), source: source)
            // Connected before the subscriber hears of it, so that a cancel from the subscriber always finds the
            // model's subscription to end. The current state arrives now and waits for demand.
            subscription.keep(
                connect(subscription) { target, value in
                    unsafeDowncast(target, to: StatePublisherSubscription<Output>.self).receive(value)
                }
            )
            subscriber.receive(subscription: subscription)
            subscription.subscriberIsReady()
        }
    }

    extension StateSource {
        /// This model's states, or this projection's values, as a Combine publisher: the current value, then each
        /// committed change (of the projected value, for a projection).
        ///
        /// The publisher holds this source, and through it the model, strongly, and so does each subscription until
        /// it is cancelled. Values are sent on the thread that delivers them; with limited demand, only the latest
        /// unsent value is kept (see ``StatePublisher``).
        ///
        /// ```swift
        /// model.publisher
        ///     .map(\.title)
        ///     .removeDuplicates()
        ///     .sink { title in print(title) }
        ///     .store(in: &cancellables)
        /// list.map(\.items.count).publisher
        ///     .sink { count in badge.text = "\(count)" }
        ///     .store(in: &cancellables)
        /// ```
        public final var publisher: StatePublisher<Value> {
            StatePublisher(source: self) { follower, receive in
                self.subscribe(follower, receive: receive)
            }
        }
    }
#endif
