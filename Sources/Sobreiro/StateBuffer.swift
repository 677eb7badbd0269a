/// The newest undelivered state of one ``StateSequence`` iterator, and the consumer waiting for it.
package final class StateBuffer<Element: Sendable>: Sendable {
    private struct Contents {
        var newest: Element?
        var waiter: UnsafeContinuation<Element?, Never>?
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

    /// Hands `state` to the waiting consumer, or keeps it in place of an older one.
    func receive(_ state: Element) {
        let waiter = contents.withLock { contents -> UnsafeContinuation<Element?, Never>? in
            guard !contents.isFinished else { return nil }
            guard let waiter = contents.waiter else {
                contents.newest = state
                return nil
            }
            contents.waiter = nil
            return waiter
        }
        waiter?.resume(returning: state)
    }

    /// Ends the sequence for this iterator: a state still buffered is handed out, then `nil`.
    package func finish() {
        let (waiter, subscription) = contents.withLock { contents in
            contents.isFinished = true
            defer { contents.waiter = nil }
            return (contents.waiter, contents.subscription)
        }
        waiter?.resume(returning: nil)
        subscription?.cancel()
    }

    func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
        if let ready = contents.withLock({ $0.take() }) { return ready }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Element?, Never>) in
                let ready = contents.withLock { contents -> Element?? in
                    if let taken = contents.take() { return taken }
                    contents.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }
}
