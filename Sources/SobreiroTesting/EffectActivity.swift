import Dispatch
import Sobreiro
package import SobreiroScopeKit
import Synchronization

/// Counts the operations of the effects of one model that are running, those of them parked on a test clock, and
/// the jobs of their tasks that are queued or running, so that a test can wait until every effect has settled.
///
/// Effects report to it through ``EffectTracker``, which only processes that link this module install (see
/// ``TestEffectTracking``): an app's effects report to nothing. The counts and the waits are an ``EffectCounts``;
/// this class adds the lock, the task executor that counts jobs and the probe of the main queue.
///
/// An operation runs with its activity in ``current``; a test clock parks that activity while the operation
/// sleeps on it. Once a test clock exists, the operation's task, and every child task it starts, runs its jobs on
/// the activity, which is their task executor, so a child task that has not slept yet still counts as a queued
/// job. Jobs isolated to the main actor run on the main queue instead: once the counts are quiet, the activity
/// queues a probe there, behind every job already queued, and the effects have settled only if the counts did not
/// change before it ran.
package final class EffectActivity: EffectTracker {
    /// The activity of the effect operation running in the current task, if any.
    @TaskLocal package static var current: EffectActivity?

    /// What a test waits for.
    package typealias Condition = EffectCondition

    private let counts = Locked(EffectCounts<CheckedContinuation<Bool, Never>>())

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

    /// Counts the operation and gives its task this activity as executor once jobs are counted.
    package func operationWillStart() -> (any TaskExecutor)? {
        change { $0.begin() }
        return Self.countsJobs.load(ordering: .relaxed) ? self : nil
    }

    /// Runs the operation with this activity in ``current``, where a test clock finds it.
    package func run<Result: Sendable>(_ operation: () async -> Result) async -> Result {
        await Self.$current.withValue(self, operation: operation)
    }

    package func operationDidEnd() { change { $0.end() } }

    /// The current operation waits on a test clock.
    package func park() { change { $0.park() } }

    /// The current operation was woken by a test clock.
    package func unpark() { change { $0.unpark() } }

    /// The number of operations running now.
    package var running: Int {
        counts.withLock { $0.running }
    }

    /// Whether every operation is parked, and settling waits only for the main queue to run what was queued on it.
    package var isWaitingForMainQueue: Bool {
        counts.withLock { $0.isWaitingForMainQueue }
    }

    /// Applies `update`, resumes the waiters whose condition holds, and probes the main queue if settling needs it.
    /// The waiters resume after the lock is released.
    private func change(_ update: (inout EffectCounts<CheckedContinuation<Bool, Never>>) -> Void) {
        let (ready, probe) = counts.withLock { counts -> ([CheckedContinuation<Bool, Never>], Int?) in
            update(&counts)
            guard counts.hasWaiters else { return ([], nil) }
            return (counts.takeReady(), counts.startProbe())
        }
        for waiter in ready { waiter.resume(returning: true) }
        guard let generation = probe else { return }
        DispatchQueue.main.async { [self] in
            change { $0.probeRan(in: generation) }
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
            change { number = $0.addWaiter(continuation, until: condition) }
            // Weakly: a wait that has ended keeps no activity alive until its timer fires. While the wait lasts,
            // its caller holds the activity.
            expire { [weak self, number] in
                self?.counts.withLock { $0.removeWaiter(number) }?.resume(returning: false)
            }
        }
    }
}

extension EffectActivity: TaskExecutor {
    /// Runs `job` on a global dispatch queue of its priority, counting it from now until it returns.
    package func enqueue(_ job: consuming ExecutorJob) {
        let quality = DispatchQoS.QoSClass(job.priority)
        let job = UnownedJob(job)
        change { $0.jobQueued() }
        DispatchQueue.global(qos: quality).async { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
            change { $0.jobReturned() }
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

/// The effect tracking of processes that link this module: each model's effects report to its ``EffectActivity``.
///
/// `SobreiroScopeKit` finds this class by name the first time an effect is created (``EffectHooks/installed``), so
/// a test needs no set-up for ``settleEffects(of:timeout:fileID:filePath:line:column:)`` to see the effects that
/// started before it; an app, which does not link this module, finds nothing and its effects report to no one.
/// Renaming or moving the class breaks that lookup: a test of this module checks that it still finds it.
package final class TestEffectTracking: EffectTracking {
    package init() {}

    package func tracker(for model: AnyObject) -> any EffectTracker {
        EffectActivity.forModel(model)
    }
}
