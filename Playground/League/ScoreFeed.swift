/// The server's live feed of scores: events wait in the feed until the app's writer takes them.
///
/// One listener at a time takes events with ``next()``. While nobody listens (the app's writer is stopped),
/// events are held, up to a limit, and the writer catches up when it starts again. The scripted session calls
/// ``waitUntilApplied()`` to resume once the writer has applied every event pushed so far.
final class ScoreFeed: Sendable {
    private static let heldLimit = 32

    private struct Queue {
        var held: [ScoreEvent] = []
        var listener: (id: Int, continuation: CheckedContinuation<ScoreEvent, any Error>)?
        var listeners = 0
        /// Listeners cancelled before they started waiting.
        var cancelled: Set<Int> = []
        /// Events pushed and not yet applied by a writer.
        var outstanding = 0
        var applyWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let queue = Locked(Queue())

    /// Pushes an event: to the listener if one waits, otherwise into the held events.
    func push(_ event: ScoreEvent) {
        let listener = queue.withLock { queue -> CheckedContinuation<ScoreEvent, any Error>? in
            queue.outstanding += 1
            if let listener = queue.listener {
                queue.listener = nil
                return listener.continuation
            }
            queue.held.append(event)
            if queue.held.count > Self.heldLimit {
                queue.held.removeFirst()
                queue.outstanding -= 1
            }
            return nil
        }
        listener?.resume(returning: event)
    }

    /// The next event: a held one at once, otherwise the next one pushed.
    ///
    /// - Throws: `CancellationError` if the listening task is cancelled while it waits.
    func next() async throws -> ScoreEvent {
        let id = queue.withLock { queue in
            queue.listeners += 1
            return queue.listeners
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ScoreEvent, any Error>) in
                let taken = queue.withLock { queue -> Result<ScoreEvent, CancellationError>? in
                    if queue.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if !queue.held.isEmpty { return .success(queue.held.removeFirst()) }
                    queue.listener = (id, continuation)
                    return nil
                }
                if let taken { continuation.resume(with: taken.mapError { $0 as any Error }) }
            }
        } onCancel: {
            let listener = queue.withLock { queue -> CheckedContinuation<ScoreEvent, any Error>? in
                guard let listener = queue.listener, listener.id == id else {
                    queue.cancelled.insert(id)
                    return nil
                }
                queue.listener = nil
                return listener.continuation
            }
            listener?.resume(throwing: CancellationError())
        }
    }

    /// Tells the feed that the writer has applied an event it took.
    func didApply() {
        let waiters = queue.withLock { queue -> [CheckedContinuation<Void, Never>] in
            queue.outstanding -= 1
            guard queue.outstanding == 0 else { return [] }
            defer { queue.applyWaiters.removeAll() }
            return queue.applyWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once every event pushed so far has been applied.
    func waitUntilApplied() async {
        await withCheckedContinuation { continuation in
            let isApplied = queue.withLock { queue in
                if queue.outstanding == 0 { return true }
                queue.applyWaiters.append(continuation)
                return false
            }
            if isApplied { continuation.resume() }
        }
    }
}
