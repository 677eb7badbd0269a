import SobreiroPrimitives

/// A clock whose time moves only when the script advances it, for the scripted session's polls.
///
/// A task that sleeps on it stays asleep until ``advance(by:)`` moves the time to its deadline, or until the task
/// is cancelled. The script awaits ``waitForSleeper()`` before advancing, so it never races the task that is
/// about to sleep.
final class ScriptedClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        /// The time since the session started.
        let offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private typealias Sleeper = CheckedContinuation<Void, any Error>
    private typealias Watcher = CheckedContinuation<Void, Never>

    private struct Time {
        var now = Instant(offset: .zero)
        var lastSleeper = 0
        var sleepers: [(id: Int, deadline: Instant, continuation: Sleeper)] = []
        /// Sleepers cancelled before they started waiting.
        var cancelled: Set<Int> = []
        var watchers: [Watcher] = []
    }

    private let time = Locked(Time())

    var now: Instant { time.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = time.withLock { time in
            time.lastSleeper += 1
            return time.lastSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Sleeper) in
                let (outcome, watchers) = time.withLock { time -> (Result<Void, any Error>?, [Watcher]) in
                    if time.cancelled.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline <= time.now { return (.success(()), []) }
                    time.sleepers.append((id, deadline, continuation))
                    defer { time.watchers = [] }
                    return (nil, time.watchers)
                }
                if let outcome { continuation.resume(with: outcome) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = time.withLock { time -> Sleeper? in
                guard let index = time.sleepers.firstIndex(where: { $0.id == id }) else {
                    time.cancelled.insert(id)
                    return nil
                }
                return time.sleepers.remove(at: index).continuation
            }
            sleeper?.resume(throwing: CancellationError())
        }
    }

    /// Returns once a task sleeps on this clock.
    func waitForSleeper() async {
        await withCheckedContinuation { continuation in
            let isSleeping = time.withLock { time in
                if !time.sleepers.isEmpty { return true }
                time.watchers.append(continuation)
                return false
            }
            if isSleeping { continuation.resume() }
        }
    }

    /// Moves the time on by `duration` and wakes the sleepers whose deadline it reaches, earliest first.
    func advance(by duration: Duration) {
        let due = time.withLock { time -> [Sleeper] in
            time.now = time.now.advanced(by: duration)
            let now = time.now
            let due = time.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            time.sleepers.removeAll { $0.deadline <= now }
            return due.map(\.continuation)
        }
        for sleeper in due { sleeper.resume() }
    }
}
