import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit

/// A clock whose time moves only when a test advances it, so that code that waits runs deterministically.
///
/// Give it to the code under test where that code takes a `Clock` (for example an effect that debounces or
/// polls). A task that sleeps on it stays suspended until ``advance(by:fileID:filePath:line:column:)`` moves the time past its deadline; the
/// sleepers then wake in deadline order. While suspended, an effect's operation counts as settled, so
/// ``settleEffects(of:timeout:fileID:filePath:line:column:)`` returns with the effect parked on the clock.
///
/// ```swift
/// let clock = TestClock()
/// let search = SearchViewModel(clock: clock)   // an effect debounces for 300 ms on `clock`
/// search.type("oak")
/// await settleEffects(of: search)               // the effect now sleeps on the clock
/// await clock.advance(by: .milliseconds(300))   // it wakes, searches and writes back
/// ```
public final class TestClock: Clock, Sendable {
    /// A point in the test clock's time: the duration since it started.
    public struct Instant: InstantProtocol {
        /// The time since the clock was created.
        public let offset: Duration

        /// Creates the instant `offset` after the clock's start.
        ///
        /// - Parameter offset: The time since the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        let number: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
        /// The effect operation the sleeping task belongs to, parked while it sleeps.
        let operation: EffectOperation?
    }

    private struct Contents {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var sleeps = 0
        /// Sleeps whose task was cancelled before they were listed in `sleepers`: they must not be listed.
        var cancelledEarly: Set<Int> = []
        /// The effect activities whose operations have slept on this clock.
        var activities: [ObjectIdentifier: EffectActivity] = [:]
        /// Called by each sleep after its task was found not cancelled and before it is listed; tests use it to
        /// cancel a task exactly there. Always `nil` outside this package's tests.
        var willListSleeper: (@Sendable () -> Void)?
    }

    private let contents = Locked(Contents())

    /// Called by each sleep after its cancellation check and before it is listed as a sleeper, outside the
    /// clock's lock, so that a test can cancel the sleeping task inside that window.
    package var willListSleeper: (@Sendable () -> Void)? {
        get { contents.withLock { $0.willListSleeper } }
        set { contents.withLock { $0.willListSleeper = newValue } }
    }

    /// Creates a clock at its start, `Instant(offset: .zero)`.
    ///
    /// From now on, the tasks of effect operations run their jobs where settling can count them, so that an
    /// operation that sleeps in several child tasks settles only once every child has reached the clock.
    public init() {
        EffectActivity.countJobs()
    }

    /// The current instant: it changes only with ``advance(by:fileID:filePath:line:column:)`` and ``advance(to:fileID:filePath:line:column:)``.
    public var now: Instant {
        contents.withLock { $0.now }
    }

    /// The number of tasks asleep on the clock.
    public var sleeperCount: Int {
        contents.withLock { $0.sleepers.count }
    }

    /// Zero: the clock has no resolution of its own.
    public var minimumResolution: Duration {
        .zero
    }

    /// Suspends until the test advances the clock to `deadline`; returns at once if it is not in the future.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while it sleeps.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let number = contents.withLock { contents in
            contents.sleeps += 1
            return contents.sleeps
        }
        let operation = EffectOperation.current
        // A cancellation may land anywhere from the check above to the listing below, where the handler finds no
        // sleeper to wake. The handler then marks the sleep, and the listing, under the same lock, refuses a
        // marked one: whichever runs second sees what the first did.
        defer { contents.withLock { _ = $0.cancelledEarly.remove(number) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                contents.withLock { $0.willListSleeper }?()
                // Parked and listed in one step, so that an advance never finds it parked but not listed.
                let outcome = contents.withLock { contents -> Result<Bool, CancellationError> in
                    guard contents.cancelledEarly.remove(number) == nil else { return .failure(CancellationError()) }
                    if let activity = operation?.activity { contents.activities[ObjectIdentifier(activity)] = activity }
                    guard deadline > contents.now else { return .success(true) }
                    contents.sleepers.append(
                        Sleeper(number: number, deadline: deadline, continuation: continuation, operation: operation)
                    )
                    operation?.park()
                    return .success(false)
                }
                switch outcome {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let cancelled = contents.withLock { contents -> Sleeper? in
                guard let index = contents.sleepers.firstIndex(where: { $0.number == number }) else {
                    // Not listed yet, or already woken: a listing still to come must not sleep.
                    contents.cancelledEarly.insert(number)
                    return nil
                }
                return contents.sleepers.remove(at: index)
            }
            guard let cancelled else { return }
            cancelled.operation?.unpark()
            cancelled.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the time forward by `duration` and wakes, in deadline order, every task whose deadline has come.
    ///
    /// - Parameters:
    ///   - duration: How far to move the clock.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func advance(
        by duration: Duration,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await advance(to: now.advanced(by: duration), fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Moves the time forward to `instant` and wakes every task whose deadline has come, in deadline order.
    ///
    /// A woken task that sleeps again before `instant` wakes again within the same call, so a loop that polls
    /// every second runs ten times when the clock advances by ten seconds. An effect's operation that slept on
    /// this clock before is awaited until it settles, before and after it wakes; `settleEffects(of:)` does the
    /// same for a model whose effects have not reached the clock yet.
    ///
    /// If an effect's operation does not settle within five seconds, the test fails at the caller's line.
    ///
    /// - Parameters:
    ///   - instant: The new time; an instant in the past leaves the clock as it is.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func advance(
        to instant: Instant,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        // Operations started since they last slept on this clock reach it first.
        for activity in contents.withLock({ Array($0.activities.values) }) {
            await settle(activity, at: location)
        }
        while let sleeper = nextDue(by: instant) {
            sleeper.operation?.unpark()
            sleeper.continuation.resume()
            if let activity = sleeper.operation?.activity {
                // An effect's operation: let it run until it sleeps again or finishes and writes back.
                await settle(activity, at: location)
            } else {
                await Task.yield()
            }
        }
        contents.withLock { contents in
            if instant > contents.now { contents.now = instant }
        }
    }

    private func settle(_ activity: EffectActivity, at location: CallerLocation) async {
        guard await !activity.wait(until: .settled, expire: expiring(after: .seconds(5))) else { return }
        reportFailure(
            "the effect operations that sleep on this TestClock did not settle within 5 seconds of an advance: "
                + unsettled(activity),
            at: location
        )
    }

    private func nextDue(by instant: Instant) -> Sleeper? {
        contents.withLock { contents in
            let sleepers = contents.sleepers
            guard let index = sleepers.indices.min(by: { sleepers[$0].deadline < sleepers[$1].deadline }),
                sleepers[index].deadline <= instant
            else { return nil }
            let sleeper = contents.sleepers.remove(at: index)
            if sleeper.deadline > contents.now { contents.now = sleeper.deadline }
            return sleeper
        }
    }
}
