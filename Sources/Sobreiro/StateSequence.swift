/// The states of a view model as an asynchronous sequence, for renderers that `for await`.
///
/// Each iterator subscribes on its own when it is made: its first element is the state current at that moment,
/// then it receives each committed change. It buffers only the newest state, so a slow consumer skips the
/// states it had no time for, never sees an older state after a newer one, and ends on the latest. Any number
/// of iterators may run at once, each on its own task.
///
/// Get one from ``StateSource/states``, of a model or of a projection. Its iterators do not keep the model alive:
/// an iterator finishes once the model is deallocated (after handing over the last state it holds), when its task
/// is cancelled, or, for the sequence of a scoped activation, when that activation ends.
///
/// Copies of one iterator are that same iterator, not new subscriptions, and may be awaited on several tasks
/// at once: they share out its states, each state going to the task that has waited longest, and when the
/// iterator finishes, or any one of those tasks is cancelled, every waiting task receives `nil`. For each task
/// to see every state, give each its own iterator.
///
/// ```swift
/// for await state in viewModel.states {
///     render(state)
/// }
/// ```
public struct StateSequence<Element: Equatable & Sendable>: AsyncSequence, Sendable {
    /// Connects a new iterator's buffer to the model.
    let connect: @Sendable (StateBuffer<Element>) -> Void

    /// Creates a sequence whose iterators `connect` subscribes.
    package init(connect: @escaping @Sendable (StateBuffer<Element>) -> Void) {
        self.connect = connect
    }

    /// Subscribes a new iterator; its first element is the current state.
    public func makeAsyncIterator() -> Iterator {
        let buffer = StateBuffer<Element>()
        connect(buffer)
        return Iterator(buffer: buffer)
    }

    /// Hands out the states of one subscription, newest first when the consumer falls behind.
    ///
    /// `Sendable`, so a copy may be awaited on another task: the copies share one subscription, and each state
    /// goes to one of the tasks waiting, the one that has waited longest.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let buffer: StateBuffer<Element>

        /// The next state: the newest one not yet handed out, waiting for a commit if there is none.
        ///
        /// - Returns: The state, or `nil` once the sequence has finished.
        public mutating func next() async -> Element? {
            await buffer.next()
        }

        /// The next state, without leaving the caller's actor. See ``next()``.
        ///
        /// - Parameter actor: The caller's actor.
        /// - Returns: The state, or `nil` once the sequence has finished.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await buffer.next(isolation: actor)
        }
    }
}

extension StateSource {
    /// The values of this source as an asynchronous sequence: the current value, then every committed change
    /// (of the projected value, for a projection), buffering only the newest for each consumer.
    ///
    /// ```swift
    /// Task { @MainActor in
    ///     for await state in counter.states { label.text = "\(state.count)" }
    /// }
    /// ```
    ///
    /// The sequence holds this source, as a publisher does; its iterators do not, and finish once the model is
    /// deallocated.
    public final var states: StateSequence<Value> {
        StateSequence { buffer in self.connect(buffer) }
    }

    /// Subscribes `buffer` to every value of this source.
    package final func connect(_ buffer: StateBuffer<Value>) {
        let release = FinishOnRelease(buffer)
        let subscription = subscribe(buffer) { target, value in
            _ = release  // held by the subscription alone: released with it, or with the model's subscribers
            unsafeDowncast(target, to: StateBuffer<Value>.self).receive(value)
        }
        buffer.keep(subscription)
    }
}

/// Finishes a buffer when it is deallocated: a subscription's handler holds it, so it goes once the model
/// drops that handler, when the subscription ends or the model is deallocated.
private final class FinishOnRelease<Element: Sendable>: Sendable {
    private weak let buffer: StateBuffer<Element>?

    init(_ buffer: StateBuffer<Element>) {
        self.buffer = buffer
    }

    deinit {
        buffer?.finish()
    }
}
