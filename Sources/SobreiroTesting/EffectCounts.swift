/// What a test waits for of a model's effects.
package enum EffectCondition: Sendable {
    /// Every running operation is parked on a test clock, none of their jobs is queued, and the main queue has
    /// run what was queued on it since.
    case settled
    /// No operation runs.
    case stopped
}

/// The counts of a model's effect operations, and who waits for them: a state machine with no lock and no thread of
/// its own, which ``EffectActivity`` keeps under its lock. A waiter is any value, given back once its condition
/// holds.
///
/// Settling needs the main queue to have run what was queued on it while the counts were quiet, since a job of an
/// operation isolated to the main actor runs there rather than on the counting executor. The machine does not probe
/// the queue itself: ``startProbe()`` says when a probe is due, and ``probeRan(in:)`` reports that it ran.
package struct EffectCounts<Waiter> {
    /// The operations running now.
    package private(set) var running = 0
    /// The running operations parked on a test clock: each counts once, however many of its child tasks sleep.
    package private(set) var parked = 0
    /// The jobs of operations' tasks that are queued or running on the counting executor.
    package private(set) var jobs = 0
    /// The number of waits under way of each operation whose body runs, by the number ``enter()`` gave it. An
    /// operation that sleeps in several child tasks waits several times at once, and is parked while any of its
    /// waits lasts: counting waits instead would let its second sleep pass for another operation that runs.
    private var waitsByOperation: [Int: Int] = [:]
    private var operations = 0
    /// Moves on with every change of the counts above.
    private var generation = 0
    /// The last generation that a probe of the main queue saw unchanged.
    private var mainQueueSeenIn = -1
    private var isProbingMainQueue = false
    private var waiters: [Int: (condition: EffectCondition, waiter: Waiter)] = [:]
    private var waits = 0

    /// Creates counts with nothing running and no waiter.
    package init() {}

    /// Every running operation is parked, and none of their jobs is queued or running.
    package var isQuiet: Bool { parked == running && jobs == 0 }

    /// Whether the counts are quiet and settling waits only for the main queue to run what was queued on it.
    package var isWaitingForMainQueue: Bool { isQuiet && mainQueueSeenIn != generation }

    /// Whether `condition` holds now.
    package func holds(_ condition: EffectCondition) -> Bool {
        switch condition {
        case .settled: isQuiet && mainQueueSeenIn == generation
        case .stopped: running == 0
        }
    }

    /// An operation starts.
    package mutating func begin() { change { $0.running += 1 } }

    /// An operation ends.
    package mutating func end() { change { $0.running -= 1 } }

    /// The body of a running operation starts, after ``begin()``: its waits count from now on.
    ///
    /// - Returns: The number that ``park(_:)``, ``unpark(_:)`` and ``leave(_:)`` take for this operation.
    package mutating func enter() -> Int {
        operations &+= 1
        waitsByOperation[operations] = 0
        return operations
    }

    /// The body of the operation numbered `operation` has returned, before ``end()``. A wait of it that is still
    /// under way, in a task it started and did not await, no longer parks it, nor does a later one.
    package mutating func leave(_ operation: Int) {
        guard let waits = waitsByOperation.removeValue(forKey: operation), waits > 0 else { return }
        change { $0.parked -= 1 }
    }

    /// The operation numbered `operation`, or one of its child tasks, waits on a test clock: the operation is parked
    /// from its first wait on.
    package mutating func park(_ operation: Int) {
        guard let waits = waitsByOperation[operation] else { return }
        waitsByOperation[operation] = waits + 1
        change { $0.parked += waits == 0 ? 1 : 0 }
    }

    /// A wait of the operation numbered `operation` has ended: the operation runs again once its last one has.
    package mutating func unpark(_ operation: Int) {
        guard let waits = waitsByOperation[operation], waits > 0 else { return }
        waitsByOperation[operation] = waits - 1
        change { $0.parked -= waits == 1 ? 1 : 0 }
    }

    /// A job of an operation's task was queued on the counting executor.
    package mutating func jobQueued() { change { $0.jobs += 1 } }

    /// A job of an operation's task returned.
    package mutating func jobReturned() { change { $0.jobs -= 1 } }

    private mutating func change(_ update: (inout Self) -> Void) {
        update(&self)
        generation &+= 1
    }

    /// Adds `waiter` until `condition` holds; ``takeReady()`` gives it back then, unless ``removeWaiter(_:)`` took it
    /// first.
    ///
    /// - Returns: The number that ``removeWaiter(_:)`` takes.
    package mutating func addWaiter(_ waiter: Waiter, until condition: EffectCondition) -> Int {
        waits += 1
        waiters[waits] = (condition, waiter)
        return waits
    }

    /// Removes the waiter numbered `number`, if it is still waiting.
    package mutating func removeWaiter(_ number: Int) -> Waiter? {
        waiters.removeValue(forKey: number)?.waiter
    }

    /// Whether anyone waits.
    package var hasWaiters: Bool { !waiters.isEmpty }

    /// Removes the waiters whose condition holds and returns them, in the order they came.
    package mutating func takeReady() -> [Waiter] {
        let ready = waiters.filter { holds($0.value.condition) }.keys.sorted()
        return ready.compactMap { waiters.removeValue(forKey: $0)?.waiter }
    }

    /// The generation to probe the main queue in, if someone waits for ``EffectCondition/settled`` and only the
    /// probe is missing; the caller queues a probe on the main queue and reports it with ``probeRan(in:)``.
    package mutating func startProbe() -> Int? {
        guard isWaitingForMainQueue, !isProbingMainQueue, waiters.values.contains(where: { $0.condition == .settled })
        else { return nil }
        isProbingMainQueue = true
        return generation
    }

    /// The main queue ran a probe that ``startProbe()`` asked for in `probed`: if nothing changed since, every job
    /// queued there before the counts went quiet has run.
    package mutating func probeRan(in probed: Int) {
        isProbingMainQueue = false
        if generation == probed { mainQueueSeenIn = probed }
    }
}
