import SobreiroPrimitives

/// A network whose requests complete exactly when the script says so, never on a timer.
///
/// A request waits in ``wait()`` until the script calls ``completeRequest()``. The script first awaits
/// ``waitForRequest()``, so it never races the task that sends the request: the order of events is the same on
/// every run. A request whose task is cancelled leaves the queue, as a cancelled URL request would; the script
/// awaits ``waitUntilNoneWaiting()`` to see that happen, because cancellation may reach the task from another
/// thread a moment after the deactivation that caused it.
final class ScriptedLatency: Latency {
    private typealias Request = CheckedContinuation<Void, any Error>
    private typealias Watcher = CheckedContinuation<Void, Never>

    private struct Requests {
        var count = 0
        var waiting: [(number: Int, continuation: Request)] = []
        /// Requests cancelled before they started waiting.
        var cancelled: Set<Int> = []
        /// The script's waits: each resumes once its condition on the waiting requests holds.
        var watchers: [(condition: WaitingCondition, continuation: Watcher)] = []

        /// Takes the watchers whose condition holds now.
        mutating func readyWatchers() -> [Watcher] {
            let count = waiting.count
            let ready = watchers.filter { $0.condition.holds(for: count) }.map(\.continuation)
            watchers.removeAll { $0.condition.holds(for: count) }
            return ready
        }
    }

    /// What the script waits for, as a value rather than a closure: it is checked under the lock, where no closure
    /// may run.
    private enum WaitingCondition {
        case someWaiting
        case noneWaiting

        func holds(for waitingCount: Int) -> Bool {
            switch self {
            case .someWaiting: waitingCount > 0
            case .noneWaiting: waitingCount == 0
            }
        }
    }

    private let requests = Locked(Requests())

    func wait() async throws {
        let number = requests.withLock { requests in
            requests.count += 1
            return requests.count
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Request) in
                let watchers = requests.withLock { requests -> [Watcher]? in
                    guard requests.cancelled.remove(number) == nil else { return nil }
                    requests.waiting.append((number, continuation))
                    return requests.readyWatchers()
                }
                guard let watchers else { return continuation.resume(throwing: CancellationError()) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let (request, watchers) = requests.withLock { requests -> (Request?, [Watcher]) in
                guard let index = requests.waiting.firstIndex(where: { $0.number == number }) else {
                    requests.cancelled.insert(number)
                    return (nil, [])
                }
                let request = requests.waiting.remove(at: index).continuation
                return (request, requests.readyWatchers())
            }
            request?.resume(throwing: CancellationError())
            for watcher in watchers { watcher.resume() }
        }
    }

    /// Returns once a request is waiting to complete.
    func waitForRequest() async {
        await waitUntil(.someWaiting)
    }

    /// Returns once no request is waiting: every one has completed or was cancelled.
    func waitUntilNoneWaiting() async {
        await waitUntil(.noneWaiting)
    }

    /// Lets the oldest waiting request complete.
    ///
    /// - Returns: `false` if no request was waiting.
    @discardableResult
    func completeRequest() -> Bool {
        let (request, watchers) = requests.withLock { requests -> (Request?, [Watcher]) in
            guard !requests.waiting.isEmpty else { return (nil, []) }
            let request = requests.waiting.removeFirst().continuation
            return (request, requests.readyWatchers())
        }
        request?.resume()
        for watcher in watchers { watcher.resume() }
        return request != nil
    }

    private func waitUntil(_ condition: WaitingCondition) async {
        await withCheckedContinuation { continuation in
            let isReadyNow = requests.withLock { requests in
                if condition.holds(for: requests.waiting.count) { return true }
                requests.watchers.append((condition, continuation))
                return false
            }
            if isReadyNow { continuation.resume() }
        }
    }
}
