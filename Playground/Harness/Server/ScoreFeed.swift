import SobreiroPrimitives

/// The server's live feed of scores, broadcast: every listener receives every score, in the order they were
/// recorded.
///
/// Two parts of the app follow the scores, each at its own pace and each stopping and starting with its own
/// part of the tree: the background writer of the user models, and the leaderboard's stream. Each takes a
/// ``ScoreListener`` of its own from ``listener(named:)``, by a name that stays the same across its activations.
/// While a listener is not being iterated (its tab is closed, its writer stopped), the feed holds its scores, up
/// to a limit, and the next iteration catches up on them.
final class ScoreFeed: Sendable {
    private static let heldLimit = 32

    private typealias Continuation = CheckedContinuation<ScoreEvent?, Never>

    private struct Listener {
        var held: [ScoreEvent] = []
        /// The call to ``ScoreFeed/next(for:)`` waiting for the next score, if any.
        var waiting: (call: Int, continuation: Continuation)?

        /// Takes `event`: returns the waiting call to resume with it, or holds it if none waits.
        mutating func receive(_ event: ScoreEvent) -> Continuation? {
            if let waiting {
                self.waiting = nil
                return waiting.continuation
            }
            held.append(event)
            if held.count > ScoreFeed.heldLimit { held.removeFirst() }
            return nil
        }

        /// The oldest held score, taken out of the held ones.
        mutating func takeHeld() -> ScoreEvent? {
            held.isEmpty ? nil : held.removeFirst()
        }
    }

    private struct Listeners {
        var byID: [Int: Listener] = [:]
        var idsByName: [String: Int] = [:]
        var lastCall = 0
    }

    private let listeners = Locked(Listeners())

    /// The listener of the subscriber named `name`: made at the first call, then the same one at every call.
    ///
    /// It receives every score pushed from its first call on, and holds them while it is not iterated, so a
    /// subscriber that stops and starts again catches up however often it asks for its listener.
    func listener(named name: String) -> ScoreListener {
        let id = listeners.withLock { listeners in
            if let id = listeners.idsByName[name] { return id }
            let id = listeners.idsByName.count + 1
            listeners.idsByName[name] = id
            listeners.byID[id] = Listener()
            return id
        }
        return ScoreListener(feed: self, id: id)
    }

    /// Pushes a score to every listener: to its iteration if one waits, otherwise into its held scores.
    func push(_ event: ScoreEvent) {
        let waiting = listeners.withLock { listeners in
            var waiting: [Continuation] = []
            for id in listeners.byID.keys {
                if let continuation = listeners.byID[id]?.receive(event) { waiting.append(continuation) }
            }
            return waiting
        }
        for continuation in waiting { continuation.resume(returning: event) }
    }

    /// The next score for listener `id`: a held one at once, otherwise the next one pushed.
    ///
    /// - Returns: `nil` once the calling task is cancelled, which ends the iteration as it ends an `AsyncStream`'s,
    ///   or when a newer iteration of the same listener takes over.
    func next(for id: Int) async -> ScoreEvent? {
        let call = listeners.withLock { listeners in
            listeners.lastCall += 1
            return listeners.lastCall
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Continuation) in
                // The calls to resume once the lock is released, each with its score or `nil`.
                let resumptions = listeners.withLock { listeners -> [(Continuation, ScoreEvent?)] in
                    // Checked under the lock that the cancellation handler takes: either the handler finds this
                    // call waiting, or this call sees the task cancelled.
                    if Task.isCancelled { return [(continuation, nil)] }
                    if let event = listeners.byID[id]?.takeHeld() { return [(continuation, event)] }
                    let superseded = listeners.byID[id]?.waiting?.continuation
                    listeners.byID[id]?.waiting = (call, continuation)
                    return superseded.map { [($0, nil)] } ?? []
                }
                for (continuation, event) in resumptions { continuation.resume(returning: event) }
            }
        } onCancel: {
            let continuation = listeners.withLock { listeners -> Continuation? in
                guard let waiting = listeners.byID[id]?.waiting, waiting.call == call else { return nil }
                listeners.byID[id]?.waiting = nil
                return waiting.continuation
            }
            continuation?.resume(returning: nil)
        }
    }
}
