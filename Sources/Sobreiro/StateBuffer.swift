import SobreiroPrimitives

/// The newest undelivered state of one ``StateSequence`` iterator, and the consumers waiting for it.
///
/// Copies of an iterator share its buffer, and may wait on several tasks at once: each waiter is kept, in the
/// order it began waiting, and each state goes to the first of them. Finishing resumes them all.
package final class StateBuffer<Element: Sendable>: Sendable {
    private typealias Waiter = UnsafeContinuation<Element?, Never>

    private struct Contents {
        var newest: Element?
        /// The consumer that began waiting first. One consumer, the common case, costs no array.
        var waiter: Waiter?
        /// Consumers on other tasks that began waiting after `waiter`, in order.
        var laterWaiters: [Waiter] = []
        var isFinished = false
        /// Held weakly: the model's subscriber list owns it, so that it and its handler go with the model.
        weak var subscription: StateSubscription?
        /// Lives as long as the iterator does; see ``keepAlive(_:)``.
        var companion: (any AnyObject & Sendable)?

        /// The buffered state, or `.some(nil)` once finished with nothing buffered; `nil` when the consumer must
        /// wait.
        mutating func take() -> Element?? {
            if let newest {
                self.newest = nil
                return newest
            }
            return isFinished ? .some(nil) : nil
        }

        /// Adds `waiter` after those already waiting.
        mutating func enqueue(_ waiter: Waiter) {
            if self.waiter == nil {
                self.waiter = waiter
            } else {
                laterWaiters.append(waiter)
            }
        }

        /// The consumer that has waited longest, no longer waiting.
        mutating func dequeue() -> Waiter? {
            defer { waiter = laterWaiters.isEmpty ? nil : laterWaiters.removeFirst() }
            return waiter
        }

        /// Every waiting consumer, no longer waiting.
        mutating func dequeueAll() -> [Waiter] {
            defer {
                waiter = nil
                laterWaiters = []
            }
            guard let waiter else { return [] }
            return [waiter] + laterWaiters
        }
    }

    private let contents = Locked(Contents())

    package init() {}

    deinit {
        contents.withLock { $0.subscription }?.cancel()
    }

    /// Keeps the subscription that feeds this buffer, to end it when the iterator goes away.
    func keep(_ subscription: StateSubscription) {
        let isFinished = contents.withLock { contents in
            contents.subscription = subscription
            return contents.isFinished
        }
        if isFinished { subscription.cancel() }
    }

    /// Keeps `companion` for as long as this buffer (its iterator and the iterator's copies) lives, such as what
    /// takes the buffer out of a signal that would otherwise finish it when the buffer is long gone.
    package func keepAlive(_ companion: any AnyObject & Sendable) {
        let replaced = contents.withLock { contents in
            defer { contents.companion = companion }
            return contents.companion
        }
        withExtendedLifetime(replaced) {}  // released here, after unlocking
    }

    /// Hands `state` to the consumer that has waited longest, or keeps it in place of an older one.
    func receive(_ state: Element) {
        // Swapped in, so that the state it replaces is released after unlocking: its `deinit` may use this buffer.
        var replaced: Element? = state
        let waiter = contents.withLock { contents -> Waiter? in
            guard !contents.isFinished else { return nil }
            guard let waiter = contents.dequeue() else {
                swap(&contents.newest, &replaced)
                return nil
            }
            return waiter
        }
        replaced = nil
        waiter?.resume(returning: state)
    }

    /// Ends the sequence for this iterator: a state still buffered is handed out, then `nil`, to every consumer.
    package func finish() {
        let (waiters, subscription) = contents.withLock { contents in
            contents.isFinished = true
            return (contents.dequeueAll(), contents.subscription)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        subscription?.cancel()
    }

    func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
        if let ready = contents.withLock({ $0.take() }) { return ready }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: Waiter) in
                let ready = contents.withLock { contents -> Element?? in
                    if let taken = contents.take() { return taken }
                    contents.enqueue(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }
}
