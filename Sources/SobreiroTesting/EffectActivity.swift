import Dispatch
import Sobreiro
import SobreiroPrimitives
package import SobreiroScopeKit
import Synchronization

/// Counts the operations of the effects of one model that are running, those of them parked on a test clock, and
/// the jobs of their tasks that are queued or running, so that a test can wait until every effect has settled.
///
/// Effects report to it through an ``EffectTracker`` of each effect, which only processes that link this module
/// install (see ``TestEffectTracking``): an app's effects report to nothing. The counts and the waits are an
/// ``EffectCounts``; this class adds the lock, the task executor that counts jobs, the probe of the main queue, and
/// the effects whose operations run, by where they were declared, for a test that ends while they run to name them.
///
/// An operation's body runs with its ``EffectOperation`` current; a test clock parks that operation while the body,
/// or any child task of it, sleeps on it. Once a test clock exists, the operation's task, and every child task it starts, runs its jobs on
/// the activity, which is their task executor, so a child task that has not slept yet still counts as a queued
/// job. Jobs isolated to the main actor run on the main queue instead: once the counts are quiet, the activity
/// queues a probe there, behind every job already queued, and the effects have settled only if the counts did not
/// change before it ran.
package final class EffectActivity: Sendable {
    /// What a test waits for.
    package typealias Condition = EffectCondition

    /// Given `true` once its condition holds, or `false` when its wait is given up.
    private typealias Waiter = @Sendable (Bool) -> Void

    private struct Contents {
        var counts = EffectCounts<Waiter>()
        /// The number of running operations of each effect, by where the effect was declared.
        var runningByOrigin: [EffectOrigin: Int] = [:]
    }

    private let contents = Locked(Contents())

    /// Whether effect tasks started from now on run their jobs on their activity. A ``TestClock`` switches it on, so
    /// that only tests with a clock pay for the counting.
    private static let countsJobs = Atomic<Bool>(false)

    /// The activity of each model whose effects exist. An activity removes its entry as it goes, so the registry
    /// holds only live activities, and finding or adding one never passes over the others. An activity can outlive
    /// its model, while an operation that ignores cancellation still runs; its entry then names a dead model, and a
    /// new model at the same address gets an activity of its own instead.
    private static let byModel = Locked<[ObjectIdentifier: WeakActivity]>([:])

    /// The model this activity counts for.
    private let model: ObjectIdentifier

    private init(model: ObjectIdentifier) {
        self.model = model
    }

    deinit {
        let model = model
        Self.byModel.withLock { entries in
            // A newer activity may have taken the entry since this one's last reference went.
            if entries[model]?.activity == nil { entries[model] = nil }
        }
    }

    /// The activity of `model`'s effects while any of them exists.
    package static func of(_ model: AnyObject) -> EffectActivity? {
        byModel.withLock { entries in
            guard let entry = entries[ObjectIdentifier(model)], entry.model === model else { return nil }
            return entry.activity
        }
    }

    /// The activity of `model`'s effects, created if none exists.
    static func forModel(_ model: AnyObject) -> EffectActivity {
        byModel.withLock { entries in
            let key = ObjectIdentifier(model)
            if let entry = entries[key], entry.model === model, let activity = entry.activity { return activity }
            let activity = EffectActivity(model: key)
            entries[key] = WeakActivity(activity: activity, model: model)
            return activity
        }
    }

    /// Makes effect tasks started from now on run their jobs on their activity, which counts them.
    static func countJobs() {
        countsJobs.store(true, ordering: .relaxed)
    }

    /// Counts an operation of the effect declared at `origin`, and gives its task this activity as executor once
    /// jobs are counted.
    func operationWillStart(of origin: EffectOrigin) -> (any TaskExecutor)? {
        change { contents in
            contents.runningByOrigin[origin, default: 0] += 1
            contents.counts.begin()
        }
        return Self.countsJobs.load(ordering: .relaxed) ? self : nil
    }

    /// Runs the body of an operation counted by ``operationWillStart(of:)`` with the operation current, where a test
    /// clock finds it.
    package func run<Result: Sendable>(_ body: () async -> Result) async -> Result {
        var number = 0
        change { number = $0.counts.enter() }
        defer { change { $0.counts.leave(number) } }
        let operation = EffectOperation(activity: self, number: number)
        return await EffectOperation.$current.withValue(operation, operation: body)
    }

    /// An operation of the effect declared at `origin` has ended.
    func operationDidEnd(of origin: EffectOrigin) {
        change { contents in
            contents.counts.end()
            let remaining = contents.runningByOrigin[origin, default: 1] - 1
            contents.runningByOrigin[origin] = remaining > 0 ? remaining : nil
        }
    }

    /// The operation numbered `operation` starts a wait that a test drives.
    func park(_ operation: Int) { change { $0.counts.park(operation) } }

    /// A wait of the operation numbered `operation` has ended.
    func unpark(_ operation: Int) { change { $0.counts.unpark(operation) } }

    /// The number of operations running now.
    package var running: Int {
        contents.withLock { $0.counts.running }
    }

    /// The running operations: how many there are, how many of them are parked, and the effects they
    /// belong to with the number of each, in the order of their declarations.
    package var runningOperations: (count: Int, parked: Int, effects: [(origin: EffectOrigin, count: Int)]) {
        contents.withLock { contents in
            let effects = contents.runningByOrigin.map { (origin: $0.key, count: $0.value) }
            return (
                contents.counts.running,
                contents.counts.parked,
                effects.sorted { ($0.origin.fileID ?? "", $0.origin.line) < ($1.origin.fileID ?? "", $1.origin.line) }
            )
        }
    }

    /// Whether every operation is parked, and settling waits only for the main queue to run what was queued on it.
    package var isWaitingForMainQueue: Bool {
        contents.withLock { $0.counts.isWaitingForMainQueue }
    }

    /// Applies `update`, resumes the waiters whose condition holds, and probes the main queue if settling needs it.
    /// The waiters resume after the lock is released.
    private func change(_ update: (inout Contents) -> Void) {
        let (ready, probe) = contents.withLock { contents -> ([Waiter], Int?) in
            update(&contents)
            guard contents.counts.hasWaiters else { return ([], nil) }
            return (contents.counts.takeReady(), contents.counts.startProbe())
        }
        for waiter in ready { waiter(true) }
        guard let generation = probe else { return }
        DispatchQueue.main.async { [self] in
            change { $0.counts.probeRan(in: generation) }
        }
    }

    /// Waits until `condition` holds.
    ///
    /// - Parameters:
    ///   - condition: What to wait for.
    ///   - expire: Given a function that ends the wait; it calls it to give up.
    /// - Returns: `true` if the condition holds, `false` if the wait was given up.
    package func wait(until condition: Condition, expire: (@escaping @Sendable () -> Void) -> Void) async -> Bool {
        await withCheckedContinuation { continuation in
            var number = 0
            change { number = $0.counts.addWaiter({ continuation.resume(returning: $0) }, until: condition) }
            // Weakly: a wait that has ended keeps no activity alive until its timer fires. While the wait lasts,
            // its caller holds the activity.
            expire { [weak self, number] in
                self?.contents.withLock { $0.counts.removeWaiter(number) }?(false)
            }
        }
    }

    /// Blocks the calling thread until `condition` holds, for up to `timeout`.
    ///
    /// For a check that cannot suspend, such as one in a `deinit`. It may block the main thread, so wait only for
    /// a condition that needs nothing from the main queue: ``EffectCondition/quiet``, not ``EffectCondition/settled``.
    ///
    /// - Returns: `true` if the condition holds, `false` after the timeout.
    package func block(until condition: Condition, timeout: Duration) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        var number = 0
        change { number = $0.counts.addWaiter({ _ in semaphore.signal() }, until: condition) }
        if semaphore.wait(timeout: .now() + timeout.dispatchInterval) == .success { return true }
        // Taken by no one: the wait is given up. Otherwise it was taken as ready and signals at once.
        guard contents.withLock({ $0.counts.removeWaiter(number) }) == nil else { return false }
        semaphore.wait()
        return true
    }
}

extension EffectActivity: TaskExecutor {
    /// Runs `job` on a global dispatch queue of its priority, counting it from now until it returns.
    package func enqueue(_ job: consuming ExecutorJob) {
        let quality = DispatchQoS.QoSClass(job.priority)
        let job = UnownedJob(job)
        change { $0.counts.jobQueued() }
        DispatchQueue.global(qos: quality).async { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
            change { $0.counts.jobReturned() }
        }
    }
}

extension DispatchQoS.QoSClass {
    /// The quality of service that matches a task's priority; the default one for a task without a priority.
    fileprivate init(_ priority: JobPriority) {
        guard priority.rawValue != 0 else {
            self = .default
            return
        }
        switch TaskPriority(rawValue: priority.rawValue) {
        case .high...: self = .userInitiated
        case .medium...: self = .default
        case .low...: self = .utility
        default: self = .background
        }
    }
}

private struct WeakActivity {
    weak var activity: EffectActivity?
    /// The model the activity counts for, to tell it from a later model at the same address.
    weak var model: AnyObject?
}
