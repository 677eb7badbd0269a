import Dispatch
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import Testing

/// A clock whose time moves only when a test advances it, so that code that waits runs deterministically.
///
/// Give it to the code under test where that code takes a `Clock` (for example an effect that debounces or
/// polls). A task that sleeps on it stays suspended until ``advance(by:fileID:filePath:line:column:)`` moves the time
/// past its deadline; the sleepers then wake in deadline order, and each runs until it sleeps again before the time
/// moves further. While suspended, an effect's operation counts as settled, so
/// ``settleEffects(of:timeout:fileID:filePath:line:column:)`` returns with the effect parked on the clock.
///
/// ```swift
/// let search = TestHost(SearchViewModel())          // an effect debounces for 300 ms on the host's clock
/// search.model.type("oak")
/// await search.settleEffects()                      // the effect now sleeps on the clock
/// await search.clock.advance(by: .milliseconds(300))  // it wakes, searches and writes back
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
        /// The sleeping task, to know it when it sleeps again.
        let task: TaskIdentity
    }

    /// A task that is not an effect, woken by an advance that waits until it sleeps again.
    private struct Awake {
        /// When its sleep returned in its task, once it has.
        var returnedAfter: Duration?
    }

    private struct Contents {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var sleeps = 0
        /// Sleeps whose task was cancelled before they were listed in `sleepers`: they must not be listed.
        var cancelledEarly: Set<Int> = []
        /// The effect activities whose operations have slept on this clock.
        var activities: [ObjectIdentifier: EffectActivity] = [:]
        /// The tasks that are not effects, woken by the advance under way, that have not slept again.
        var awake: [TaskIdentity: Awake] = [:]
        /// Moves on whenever a sleeper is listed or an awake task's sleep returns.
        var changes = 0
        /// The waits for the next change, by their number.
        var changeWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var changeWaits = 0
        /// Called by each sleep after its task was found not cancelled and before it is listed; tests use it to
        /// cancel a task exactly there. Always `nil` outside this package's tests.
        var willListSleeper: (@Sendable () -> Void)?

        /// Records a change, and returns the waits to resume.
        mutating func changed() -> [CheckedContinuation<Void, Never>] {
            changes &+= 1
            defer { changeWaiters = [:] }
            return Array(changeWaiters.values)
        }
    }

    private let contents = Locked(Contents())

    /// Called by each sleep after its cancellation check and before it is listed as a sleeper, outside the
    /// clock's lock, so that a test can cancel the sleeping task inside that window.
    package var willListSleeper: (@Sendable () -> Void)? {
        get { contents.withLock { $0.willListSleeper } }
        set {
            // The closure replaced goes after unlocking: releasing it may run a deinit.
            var replaced = newValue
            contents.withLock { swap(&$0.willListSleeper, &replaced) }
        }
    }

    /// Creates a clock at its start, `Instant(offset: .zero)`.
    ///
    /// From now on, the tasks of effect operations run their jobs where settling can count them, so that an
    /// operation that sleeps in several child tasks settles only once every child has reached the clock.
    public init() {
        EffectActivity.countJobs()
    }

    /// Suspends for `duration` of the clock's time, on the caller's actor; see ``sleep(until:tolerance:)``.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while it sleeps.
    nonisolated(nonsending) public func sleep(for duration: Duration, tolerance: Duration? = nil) async throws {
        try await sleep(until: now.advanced(by: duration), tolerance: tolerance)
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
    /// Runs on the caller's actor, so that a task on the main actor wakes, runs and sleeps again in one turn of the
    /// main actor, where an advance on the main actor finds it asleep again as soon as it runs.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while it sleeps.
    nonisolated(nonsending) public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleep(until: deadline, isolation: #isolation)
    }

    /// Sleeps until `deadline` on `isolation`, the caller's actor, which the closures below inherit.
    private func sleep(until deadline: Instant, isolation: isolated (any Actor)?) async throws {
        try Task.checkCancellation()
        let task = TaskIdentity.current
        let number = contents.withLock { contents in
            contents.sleeps += 1
            return contents.sleeps
        }
        let operation = EffectOperation.current
        // A cancellation may land anywhere from the check above to the listing below, where the handler finds no
        // sleeper to wake. The handler then marks the sleep, and the listing, under the same lock, refuses a
        // marked one: whichever runs second sees what the first did.
        defer { contents.withLock { _ = $0.cancelledEarly.remove(number) } }
        // Woken, cancelled or not asleep at all: an advance that waits for this task learns that it runs again.
        defer {
            let waits = contents.withLock { contents -> [CheckedContinuation<Void, Never>] in
                guard contents.awake[task] != nil else { return [] }
                contents.awake[task]?.returnedAfter = ContinuousClock.now - TaskIdentity.epoch
                return contents.changed()
            }
            for wait in waits { wait.resume() }
        }
        try await withTaskCancellationHandler {
            // Captured, so that this closure runs on the caller's actor too.
            _ = isolation
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                contents.withLock { $0.willListSleeper }?()
                // Parked and listed in one step, so that an advance never finds it parked but not listed.
                let (outcome, waits) = contents.withLock {
                    contents -> (Result<Bool, CancellationError>, [CheckedContinuation<Void, Never>]) in
                    guard contents.cancelledEarly.remove(number) == nil else {
                        return (.failure(CancellationError()), [])
                    }
                    // Added once: replacing the entry would let go of a reference under the lock.
                    if let activity = operation?.activity, contents.activities[ObjectIdentifier(activity)] == nil {
                        contents.activities[ObjectIdentifier(activity)] = activity
                    }
                    guard deadline > contents.now else { return (.success(true), []) }
                    contents.sleepers.append(
                        Sleeper(
                            number: number,
                            deadline: deadline,
                            continuation: continuation,
                            operation: operation,
                            task: task
                        )
                    )
                    operation?.park(on: .clock)
                    // A task an advance woke sleeps again: the advance may move on.
                    contents.awake[task] = nil
                    return (.success(false), contents.changed())
                }
                for wait in waits { wait.resume() }
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
            cancelled.operation?.unpark(on: .clock)
            cancelled.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the time forward by `duration` and runs, in deadline order, every task whose deadline has come; see
    /// ``advance(to:fileID:filePath:line:column:)``.
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

    /// Moves the time forward to `instant`, running every task that sleeps on the clock until then, as the time
    /// would pass for them.
    ///
    /// The advance suspends while it works, and returns once the clock shows `instant` and every task it woke has
    /// done what it does by then:
    /// 1. It first lets the effect work of the test reach the clock: it settles the effects of every model whose
    ///    operations the current test started, and of every model whose operations slept on this clock before, as
    ///    ``settleEffects(of:timeout:fileID:filePath:line:column:)`` would. So a timer that an effect starts just
    ///    before the advance is asleep on the clock, and wakes with it, without a `settleEffects()` first.
    /// 2. It then wakes the sleepers whose deadline has come, earliest first, moving the clock to each one's
    ///    deadline, and lets each run before the time moves further: an effect's operation until it settles again
    ///    (it sleeps again, waits for the next element of a sequence, or finishes and writes back); a task that is
    ///    not an effect until it sleeps on this clock again. A task that does not sleep again (it finishes, or
    ///    waits for something else) cannot be seen finishing: the advance gives it a moment, which grows with how
    ///    long the woken task took to run again and lasts until the main queue and the cooperative pool have gone
    ///    quiet, so await such a task, or the state it writes, before asserting what it did after its last sleep.
    ///    A woken task that then waits its turn on another busy actor, neither the main actor nor the pool, is not
    ///    seen waiting, and may sleep again only after the advance has moved past its next deadline: advance such a
    ///    loop one step at a time, awaiting what each step does.
    ///
    /// A loop that sleeps one second at a time therefore runs ten times when the clock advances by ten seconds,
    /// and each of its iterations sees `now` at the second it woke.
    ///
    /// ```swift
    /// let ticks = Task {
    ///     for _ in 0..<10 { try await clock.sleep(for: .seconds(1)); await counter.tick() }
    /// }
    /// await clock.advance(by: .seconds(10))
    /// try await ticks.value
    /// #expect(await counter.count == 10)
    /// ```
    ///
    /// A task that is not an effect is known to the clock only once it sleeps on it. Before advancing past a task
    /// the test has just started, await ``waitForSleepers(_:timeout:fileID:filePath:line:column:)``.
    ///
    /// Every wait is bounded by a safety net of 30 seconds (3 minutes under ThreadSanitizer or AddressSanitizer), far
    /// more than a correct test needs even on a busy machine: if an effect's operation does not settle by then, because it waits for something other than a
    /// test clock or a sequence it consumes, the test fails at the caller's line, naming what it waits for.
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
        // Effect work started before the advance, or since it last slept on this clock, reaches the clock first.
        var catchingUp = contents.withLock { $0.activities }
        for activity in EffectActivity.activities(startedIn: Test.current?.id) {
            catchingUp[ObjectIdentifier(activity)] = activity
        }
        for activity in catchingUp.values {
            await settle(activity, at: location)
        }
        while let sleeper = nextDue(by: instant) {
            sleeper.operation?.unpark(on: .clock)
            sleeper.continuation.resume()
            if let activity = sleeper.operation?.activity {
                // An effect's operation: let it run until it sleeps again or finishes and writes back.
                await settle(activity, at: location)
            } else {
                await runAwake(sleeper.task, at: location)
            }
        }
        contents.withLock { contents in
            if instant > contents.now { contents.now = instant }
        }
    }

    /// Suspends until at least `count` tasks sleep on the clock, for a task the test started that has not reached
    /// it yet. Effects need no such wait: ``advance(to:fileID:filePath:line:column:)`` settles them first.
    ///
    /// ```swift
    /// let poll = Task { while true { try await clock.sleep(for: .seconds(1)); await feed.refresh() } }
    /// await clock.waitForSleepers()
    /// await clock.advance(by: .seconds(3))
    /// ```
    ///
    /// - Parameters:
    ///   - count: How many sleepers to wait for.
    ///   - timeout: A safety net: if fewer tasks sleep by then, the test fails at the caller's line.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func waitForSleepers(
        _ count: Int = 1,
        timeout: Duration = .seconds(30),
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let (sleeping, changes) = contents.withLock { ($0.sleepers.count, $0.changes) }
            if sleeping >= count { return }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero, await change(after: changes, upTo: remaining) else {
                reportFailure(
                    "only \(sleeping) of \(count) task(s) slept on the TestClock within \(timeout)",
                    at: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
                )
                return
            }
        }
    }

    /// Lets `task`, a task that is not an effect, which the advance has just woken, run until it sleeps on the clock
    /// again; or, if it does not, for a moment after its sleep returned.
    private func runAwake(_ task: TaskIdentity, at location: CallerLocation) async {
        let resumed = ContinuousClock.now - TaskIdentity.epoch
        defer { contents.withLock { _ = $0.awake.removeValue(forKey: task) } }
        var returned: Duration?
        // Until its sleep has returned, the task has not run at all: wait as long as the safety net allows.
        let deadline = ContinuousClock.now.advanced(by: safetyNet)
        while true {
            let (state, changes) = contents.withLock { ($0.awake[task], $0.changes) }
            guard let state else { return }  // asleep again
            if let after = state.returnedAfter {
                returned = after
                break
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero, await change(after: changes, upTo: remaining) else { return }
        }
        // It runs. Whether it will sleep again cannot be seen, only that it does. Give it a moment that grows with
        // how long it took to run again, and that ends only once the executors it may hop through have gone quiet:
        // three round trips, each through the main queue and then the cooperative pool, with no change to the
        // clock. A task queued on either one before a round trip has run by the time that round trip returns, so on a
        // busy machine the moment stretches with the queues rather than expiring while the task still waits its turn.
        // Each wait also ends as soon as the clock changes (the task may have slept again), and all of them together
        // within the safety net, after which the task is taken not to sleep again.
        let latency = max(.zero, (returned ?? resumed) - resumed)
        let end = ContinuousClock.now.advanced(by: min(max(latency * 50, .milliseconds(20)), .seconds(2)))
        var quietRoundTrips = 0
        while quietRoundTrips < 3 || ContinuousClock.now < end {
            guard ContinuousClock.now < deadline else { return }
            // Read together: a task that slept again after the last look changed the clock before this count.
            let (awake, changes) = contents.withLock { ($0.awake[task], $0.changes) }
            guard awake != nil else { return }  // asleep again
            await mainQueueTurn(orChangeAfter: changes, upTo: ContinuousClock.now.duration(to: deadline))
            await Task.detached {}.value
            let (state, changed) = contents.withLock { ($0.awake[task], $0.changes != changes) }
            guard state != nil else { return }  // asleep again
            quietRoundTrips = changed ? 0 : quietRoundTrips + 1
            if quietRoundTrips >= 3, ContinuousClock.now < end {
                let (awake, changes) = contents.withLock { ($0.awake[task], $0.changes) }
                guard awake != nil else { return }  // asleep again
                _ = await change(after: changes, upTo: ContinuousClock.now.duration(to: end))
            }
        }
    }

    /// Suspends until the main queue has run what was queued on it before this call, the clock changes after
    /// `changes`, or `limit` passes, whichever comes first.
    private func mainQueueTurn(orChangeAfter changes: Int, upTo limit: Duration) async {
        let waiting = Locked<CheckedContinuation<Void, Never>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiting.withLock { $0 = continuation }
            // The first of the three resumes the wait; the others find nothing to resume.
            let resume: @Sendable () -> Void = {
                let first = waiting.withLock { waiting -> CheckedContinuation<Void, Never>? in
                    defer { waiting = nil }
                    return waiting
                }
                first?.resume()
            }
            DispatchQueue.main.async(execute: resume)
            Task.detached { [weak self] in
                _ = await self?.change(after: changes, upTo: limit)
                resume()
            }
        }
    }

    /// Suspends until the clock changes after `changes`, or `duration` passes.
    ///
    /// - Returns: `true` if the clock changed, `false` after `duration`.
    private func change(after changes: Int, upTo duration: Duration) async -> Bool {
        let timedOut = Locked(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let number = contents.withLock { contents -> Int? in
                guard contents.changes == changes else { return nil }
                contents.changeWaits += 1
                contents.changeWaiters[contents.changeWaits] = continuation
                return contents.changeWaits
            }
            guard let number else { return continuation.resume() }
            expiring(after: duration)({ [weak self] in
                let expired = self?.contents.withLock { $0.changeWaiters.removeValue(forKey: number) }
                guard let expired else { return }
                timedOut.withLock { $0 = true }
                expired.resume()
            })
        }
        return !timedOut.withLock { $0 }
    }

    private func settle(_ activity: EffectActivity, at location: CallerLocation) async {
        guard await !activity.wait(until: .settled, expire: expiring(after: safetyNet)) else { return }
        reportFailure(
            "advance waits for the effects of the test to settle before and after it wakes them, and these did not "
                + "within \(safetyNet): " + unsettled(activity),
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
            if sleeper.operation == nil { contents.awake[sleeper.task] = Awake() }
            return sleeper
        }
    }
}

/// Which task runs, told apart from the others that run at the same time.
///
/// Two tasks alive at once never share one; a task that has ended may pass its identity on to a new one, which
/// matters only to a clock that still waits for the old one to sleep again, and then only makes it move on.
struct TaskIdentity: Hashable, Sendable {
    private let value: Int

    /// The identity of the current task; every caller outside a task shares one.
    static var current: TaskIdentity {
        TaskIdentity(value: withUnsafeCurrentTask { $0?.hashValue } ?? 0)
    }

    /// The start of the durations a clock records with `ContinuousClock`.
    static let epoch = ContinuousClock.now
}
