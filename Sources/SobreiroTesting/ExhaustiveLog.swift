import Sobreiro
import SobreiroPrimitives

/// What a recorder has recorded, and how much of it a test has looked at: the exhaustive bookkeeping that
/// ``StateRecorder`` and ``LifecycleRecorder`` share.
///
/// A test looks at entries by asserting them step by step, by awaiting them one at a time, or by reading them all.
/// The first step makes the log exhaustive: every entry recorded after the last look then fails the test when the
/// recorder is released, at the line that created it, through ``reportUnasserted(_:)``. A test that only ever
/// reads everything is not held to look again.
///
/// `Sendable`, so that a recorder's `deinit` reads it where it runs, without hopping to another actor: a hop would
/// lose the test that released the recorder, which is where an unasserted entry must be reported.
final class ExhaustiveLog<Entry: Sendable>: Sendable {
    private struct Contents {
        var entries: [Entry] = []
        /// How many of `entries` were looked at.
        var seen = 0
        /// Whether the test looks step by step, which makes every entry count.
        var isStepping = false
        /// Tasks waiting for the next entry, by the number of their wait.
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var waits = 0

        var unseen: [Entry] { Array(entries[seen...]) }
    }

    private let contents = Locked(Contents())
    /// Where the recorder was created: where an entry that was never looked at is reported.
    let createdAt: CallerLocation

    init(createdAt: CallerLocation) {
        self.createdAt = createdAt
    }

    /// Records `entry`, and wakes the tasks waiting for one.
    func append(_ entry: Entry) {
        let waiters = contents.withLock { contents in
            contents.entries.append(entry)
            defer { contents.waiters = [:] }
            return contents.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The last entry recorded, looked at or not.
    var last: Entry? {
        contents.withLock { $0.entries.last }
    }

    /// Every entry so far, oldest first, all of them looked at from now on.
    func lookAtAll() -> [Entry] {
        contents.withLock { contents in
            contents.seen = contents.entries.count
            return contents.entries
        }
    }

    /// The entries not looked at yet, looked at from now on; a step.
    func takeUnseen() -> [Entry] {
        contents.withLock { contents in
            contents.isStepping = true
            defer { contents.seen = contents.entries.count }
            return contents.unseen
        }
    }

    /// The oldest entry not looked at yet, looked at from now on, or `nil` if there is none; a step.
    func takeNext() -> Entry? {
        contents.withLock { contents in
            contents.isStepping = true
            guard contents.seen < contents.entries.count else { return nil }
            defer { contents.seen += 1 }
            return contents.entries[contents.seen]
        }
    }

    /// Suspends until an entry not looked at yet is recorded (`true`), or `duration` passes (`false`). Returns at
    /// once if there is one already.
    func waitForEntry(upTo duration: Duration, isolation: isolated (any Actor)? = #isolation) async -> Bool {
        let timedOut = Locked(false)
        await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
            let number = contents.withLock { contents -> Int? in
                guard contents.seen == contents.entries.count else { return nil }
                contents.waits += 1
                contents.waiters[contents.waits] = continuation
                return contents.waits
            }
            guard let number else {
                continuation.resume()
                return
            }
            expiring(after: duration)({ [weak self] in
                let expired = self?.contents.withLock { contents -> CheckedContinuation<Void, Never>? in
                    contents.waiters.removeValue(forKey: number)
                }
                guard let expired else { return }
                timedOut.withLock { $0 = true }
                expired.resume()
            })
        }
        return !timedOut.withLock { $0 }
    }

    /// Fails the test at ``createdAt`` with the message `describe` makes of the last entry looked at, if any, and of
    /// the entries never looked at, if the test looked step by step and left some; call it as the recorder is
    /// released.
    func reportUnasserted(_ describe: (_ lastSeen: Entry?, _ unseen: [Entry]) -> String) {
        let (lastSeen, unseen) = contents.withLock { contents -> (Entry?, [Entry]) in
            guard contents.isStepping else { return (nil, []) }
            return (contents.seen > 0 ? contents.entries[contents.seen - 1] : nil, contents.unseen)
        }
        guard !unseen.isEmpty else { return }
        reportFailure(describe(lastSeen, unseen), at: createdAt)
    }
}
