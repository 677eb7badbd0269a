import Dispatch
import Sobreiro
import Synchronization

/// Counts the operations of the effects of one model that are running, those of them parked on a test clock, and
/// the jobs of their tasks that are queued or running, so that a test can wait until every effect has settled.
///
/// An operation runs with its activity in ``current``; a test clock parks that activity while the operation
/// sleeps on it. Once a test clock exists, the operation's task, and every child task it starts, runs its jobs on
/// the activity, which is their task executor, so a child task that has not slept yet still counts as a queued
/// job. Jobs isolated to the main actor run on the main queue instead: once the counts are quiet, the activity
/// queues a probe there, behind every job already queued, and the effects have settled only if the counts did not
/// change before it ran.
package final class EffectActivity: Sendable {
    /// The activity of the effect operation running in the current task, if any.
    @TaskLocal package static var current: EffectActivity?

    private struct Counts {
        var running = 0
        var parked = 0
        /// The jobs of operations' tasks that are queued or running on this activity.
        var jobs = 0
        /// Moves on with every change of the counts above.
        var generation = 0
        /// The last generation that a probe of the main queue saw unchanged.
        var mainQueueSeenIn = -1
        var isProbingMainQueue = false
        var waiters: [Int: (condition: Condition, continuation: CheckedContinuation<Bool, Never>)] = [:]
        var waits = 0

        /// Every running operation is parked (each sleep of one in several child tasks parks it once), and none of
        /// their jobs is queued or running here.
        var isQuiet: Bool { running <= parked && jobs == 0 }

        func holds(_ condition: Condition) -> Bool {
            switch condition {
            case .settled: isQuiet && mainQueueSeenIn == generation
            case .stopped: running == 0
            }
        }

        /// Removes the waiters whose condition holds and returns them.
        mutating func takeReady() -> [CheckedContinuation<Bool, Never>] {
            let ready = waiters.filter { holds($0.value.condition) }
            for number in ready.keys { waiters[number] = nil }
            return ready.values.map(\.continuation)
        }

        /// The generation to probe the main queue in, if someone waits for `settled` and only the probe is missing.
        mutating func startProbe() -> Int? {
            guard isQuiet, mainQueueSeenIn != generation, !isProbingMainQueue,
                waiters.values.contains(where: { $0.condition == .settled })
            else { return nil }
            isProbingMainQueue = true
            return generation
        }
    }

    /// What a test waits for.
    package enum Condition: Sendable {
        /// Every running operation is parked on a test clock.
        case settled
        /// No operation runs.
        case stopped
    }

    private let counts = Locked(Counts())

    /// Whether effect tasks started from now on run their jobs on their activity. A ``TestClock`` switches it on, so
    /// that only tests pay for the counting.
    private static let countsJobs = Atomic<Bool>(false)

    /// The activity of each model whose effects exist. An activity removes its entry as it goes, so the registry
    /// holds only live activities. An activity can outlive its model, while an operation that ignores cancellation
    /// still runs; its entry then names a dead model, and a new model at the same address gets an activity of its
    /// own instead.
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
    package static func countJobs() {
        countsJobs.store(true, ordering: .relaxed)
    }

    /// The executor for an operation's task: this activity once jobs are counted, otherwise none of its own.
    var executor: (any TaskExecutor)? {
        Self.countsJobs.load(ordering: .relaxed) ? self : nil
    }

    func begin() { change { $0.running += 1 } }

    func end() { change { $0.running -= 1 } }

    /// The current operation waits on a test clock.
    package func park() { change { $0.parked += 1 } }

    /// The current operation was woken by a test clock.
    package func unpark() { change { $0.parked -= 1 } }

    /// The number of operations running now.
    package var running: Int {
        counts.withLock { $0.running }
    }

    /// Whether every operation is parked, and settling waits only for the main queue to run what was queued on it.
    package var isWaitingForMainQueue: Bool {
        counts.withLock { $0.isQuiet && $0.mainQueueSeenIn != $0.generation }
    }

    private func change(_ update: (inout Counts) -> Void) {
        resolve { counts in
            update(&counts)
            counts.generation &+= 1
        }
    }

    /// Applies `update`, resumes the waiters whose condition holds, and probes the main queue if settling needs it.
    private func resolve(after update: (inout Counts) -> Void) {
        let (ready, probe) = counts.withLock { counts -> ([CheckedContinuation<Bool, Never>], Int?) in
            update(&counts)
            guard !counts.waiters.isEmpty else { return ([], nil) }
            return (counts.takeReady(), counts.startProbe())
        }
        for waiter in ready { waiter.resume(returning: true) }
        guard let generation = probe else { return }
        DispatchQueue.main.async { [self] in
            resolve { counts in
                counts.isProbingMainQueue = false
                if counts.generation == generation { counts.mainQueueSeenIn = generation }
            }
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
            resolve { counts in
                counts.waits += 1
                number = counts.waits
                counts.waiters[number] = (condition, continuation)
            }
            // Weakly: a wait that has ended keeps no activity alive until its timer fires. While the wait lasts,
            // its caller holds the activity.
            expire { [weak self, number] in
                self?.counts.withLock { $0.waiters.removeValue(forKey: number) }?.continuation.resume(returning: false)
            }
        }
    }
}

extension EffectActivity: TaskExecutor {
    /// Runs `job` on a global dispatch queue of its priority, counting it from now until it returns.
    package func enqueue(_ job: consuming ExecutorJob) {
        let quality = DispatchQoS.QoSClass(job.priority)
        let job = UnownedJob(job)
        change { $0.jobs += 1 }
        DispatchQueue.global(qos: quality).async { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
            change { $0.jobs -= 1 }
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
