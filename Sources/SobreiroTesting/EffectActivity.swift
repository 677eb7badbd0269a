import Dispatch
import Sobreiro
import SobreiroPrimitives
package import SobreiroScopeKit
import Synchronization
import Testing

/// Counts the operations of the effects of one model that are running, those of them parked on a test clock, and
/// the jobs of their tasks that are queued or running, so that a test can wait until every effect has settled.
///
/// Effects report to it through an ``EffectTracker`` of each effect, which only trees under test
/// provide (see ``TestEffectTracking``): an app's effects report to nothing. The counts and the waits are an
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
        /// Each operation whose body runs, by the number ``EffectCounts/enter()`` gave it: its effect, and what it
        /// waits for.
        var bodies: [Int: Body] = [:]
        /// The test whose code started the last operation, if Swift Testing runs it: a clock that advances in that
        /// test first lets these operations reach it.
        var startedIn: Test.ID?
    }

    /// An operation whose body runs, and the waits of it that a test drives.
    private struct Body {
        let origin: EffectOrigin
        var clockWaits = 0
        var sequenceWaits = 0
        /// Whether its task was cancelled: it is ending, and a test that ends meanwhile has not missed its work.
        var isCancelled = false

        var state: OperationState {
            if clockWaits > 0 { return .asleepOnClock }
            if sequenceWaits > 0 { return .waitingForSequence }
            return .running
        }
    }

    private let contents = Locked(Contents())

    /// Whether effect tasks started from now on run their jobs on their activity. A ``TestClock`` and a ``TestHost``
    /// switch it on, so that only tests that settle effects pay for the counting.
    private static let countsJobs = Atomic<Bool>(false)

    /// Whether effect tasks started from now on run their jobs on their activity.
    package static var isCountingJobs: Bool {
        countsJobs.load(ordering: .relaxed)
    }

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
        let (model, me) = (model, ObjectIdentifier(self))
        // Read before locking, and let go of after unlocking, as anything held across the lock.
        let hooks = Self.registryHooks
        hooks?.activityWillLeave()
        // A newer activity may have taken the entry since this one's last reference went. The entry is told apart by
        // identity, never by loading its weak reference: that would make a strong reference to the newer activity,
        // and if its other references went meanwhile, releasing this one would run its deinit here, under the lock
        // that deinit takes. No other activity can have this one's address while this one is deinitialized.
        let removed = Self.byModel.withLock { entries -> WeakActivity? in
            defer { hooks?.entryExamined() }
            guard entries[model]?.identity == me else { return nil }
            return entries.removeValue(forKey: model)
        }
        // Let go of the entry after unlocking, as of everything the registry drops.
        withExtendedLifetime((removed, hooks)) {}
    }

    /// The activity of `model`'s effects while any of them exists.
    package static func of(_ model: AnyObject) -> EffectActivity? {
        byModel.withLock { entries -> EffectActivity? in
            // Loading `entry.model` releases nothing here: the caller holds `model`, the only live object at its
            // address. The activity is handed to the caller, who releases it after unlocking.
            guard let entry = entries[ObjectIdentifier(model)], entry.model === model else { return nil }
            return entry.activity
        }
    }

    /// The activity of `model`'s effects, created if none exists.
    static func forModel(_ model: AnyObject) -> EffectActivity {
        let (activity, replaced) = byModel.withLock { entries -> (EffectActivity, WeakActivity?) in
            let key = ObjectIdentifier(model)
            if let entry = entries[key], entry.model === model, let activity = entry.activity { return (activity, nil) }
            let activity = EffectActivity(model: key)
            return (activity, entries.updateValue(WeakActivity(activity: activity, model: model), forKey: key))
        }
        withExtendedLifetime(replaced) {}
        return activity
    }

    /// The live activities whose operations were last started by code of the test `test` (`nil`: no Swift Testing
    /// test, as under XCTest).
    static func activities(startedIn test: Test.ID?) -> [EffectActivity] {
        // Loaded under the lock and filtered after it: a reference let go of inside could be the last one.
        let all = byModel.withLock { entries in entries.values.compactMap { $0.activity } }
        return all.filter { activity in activity.contents.withLock { $0.startedIn == test } }
    }

    /// Points in the registry's life where a test of this package controls how threads interleave: `nil` in every
    /// other process, where they cost each activity's deinit one read under a lock of their own.
    package struct RegistryHooks: Sendable {
        /// Called as an activity's deinit begins, before it takes the registry's lock.
        package var activityWillLeave: @Sendable () -> Void
        /// Called by an activity's deinit once it holds the registry's lock and has examined its model's entry,
        /// before it lets the lock go.
        package var entryExamined: @Sendable () -> Void

        /// Creates the hooks.
        package init(
            activityWillLeave: @escaping @Sendable () -> Void,
            entryExamined: @escaping @Sendable () -> Void
        ) {
            self.activityWillLeave = activityWillLeave
            self.entryExamined = entryExamined
        }
    }

    private static let hooks = Locked<RegistryHooks?>(nil)

    /// The registry's hooks; set only by this package's tests, in a process of their own.
    package static var registryHooks: RegistryHooks? {
        get { hooks.withLock { $0 } }
        set {
            var replaced = newValue
            hooks.withLock { swap(&$0, &replaced) }
        }
    }

    /// Makes effect tasks started from now on run their jobs on their activity, which counts them.
    static func countJobs() {
        noteTestProcess()
        countsJobs.store(true, ordering: .relaxed)
    }

    /// Counts an operation of the effect declared at `origin`, and gives its task this activity as executor once
    /// jobs are counted.
    func operationWillStart(of origin: EffectOrigin) -> (any TaskExecutor)? {
        let test = Test.current?.id
        change { contents in
            contents.runningByOrigin[origin, default: 0] += 1
            if let test { contents.startedIn = test }
            contents.counts.begin()
        }
        return Self.countsJobs.load(ordering: .relaxed) ? self : nil
    }

    /// Runs the body of an operation of the effect declared at `origin`, counted by ``operationWillStart(of:)``,
    /// with the operation current, where a test clock finds it.
    package func run<Result: Sendable>(of origin: EffectOrigin, _ body: () async -> Result) async -> Result {
        var entered = 0
        change { contents in
            entered = contents.counts.enter()
            contents.bodies[entered] = Body(origin: origin)
        }
        let number = entered
        defer {
            change { contents in
                contents.counts.leave(number)
                contents.bodies[number] = nil
            }
        }
        let operation = EffectOperation(activity: self, number: number)
        return await withTaskCancellationHandler {
            await EffectOperation.$current.withValue(operation, operation: body)
        } onCancel: {
            change { $0.bodies[number]?.isCancelled = true }
        }
    }

    /// An operation of the effect declared at `origin` has ended.
    func operationDidEnd(of origin: EffectOrigin) {
        change { contents in
            contents.counts.end()
            let remaining = contents.runningByOrigin[origin, default: 1] - 1
            contents.runningByOrigin[origin] = remaining > 0 ? remaining : nil
        }
    }

    /// The operation numbered `operation` starts a wait for `wait`, which a test drives.
    func park(_ operation: Int, on wait: EffectWait) {
        change { contents in
            contents.counts.park(operation)
            switch wait {
            case .clock: contents.bodies[operation]?.clockWaits += 1
            case .sequence: contents.bodies[operation]?.sequenceWaits += 1
            }
        }
    }

    /// A wait for `wait` of the operation numbered `operation` has ended.
    func unpark(_ operation: Int, on wait: EffectWait) {
        change { contents in
            contents.counts.unpark(operation)
            switch wait {
            case .clock: contents.bodies[operation]?.clockWaits -= 1
            case .sequence: contents.bodies[operation]?.sequenceWaits -= 1
            }
        }
    }

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

    /// The operations whose body runs, grouped by their effect and by what they do now, in the order of the
    /// effects' declarations.
    ///
    /// Only operations whose task has entered the body and not returned from it are among them, and not those whose
    /// task was cancelled. One whose body has returned is writing its result back: a test that has seen its
    /// write-back has seen what it did. One that was cancelled is ending, and what it would have done was called
    /// off. One whose task has not started yet is called off by a tear-down that comes first; were it counted, a
    /// test that ends right after starting it would pass or fail by how fast the machine schedules the task.
    package var unfinishedOperations: [UnfinishedOperations] {
        contents.withLock { contents in
            var groups: [UnfinishedOperations.Key: Int] = [:]
            for body in contents.bodies.values where !body.isCancelled {
                groups[.init(origin: body.origin, state: body.state), default: 0] += 1
            }
            return groups.map { UnfinishedOperations(origin: $0.key.origin, state: $0.key.state, count: $0.value) }
                .sorted { $0.sortKey < $1.sortKey }
        }
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

/// What an effect operation waits for while it is parked.
package enum EffectWait: Sendable {
    /// A sleep on a ``TestClock``.
    case clock
    /// The next element of an `AsyncSequence` the effect consumes.
    case sequence
}

/// What an operation whose body has not returned does now.
package enum OperationState: Int, Sendable, Comparable {
    /// It runs, or waits for something that is neither a test clock nor a sequence it consumes.
    case running
    /// It waits for the next element of a sequence it consumes.
    case waitingForSequence
    /// It sleeps on a test clock.
    case asleepOnClock

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The unfinished operations of one effect that are in one state.
package struct UnfinishedOperations: Sendable {
    fileprivate struct Key: Hashable {
        let origin: EffectOrigin
        let state: OperationState
    }

    /// Where the effect was declared.
    package let origin: EffectOrigin
    /// What its operations do.
    package let state: OperationState
    /// How many of its operations do that.
    package let count: Int

    fileprivate var sortKey: String {
        "\(origin.fileID ?? "")\u{0}\(String(origin.line + 1_000_000_000))\u{0}\(origin.form)\u{0}\(state.rawValue)"
    }
}

/// A registry entry. A class, so that reading its identity copies no weak reference.
private final class WeakActivity {
    weak let activity: EffectActivity?
    /// The model the activity counts for, to tell it from a later model at the same address.
    weak let model: AnyObject?
    /// The activity's identity, compared without loading `activity`.
    let identity: ObjectIdentifier

    init(activity: EffectActivity, model: AnyObject) {
        self.activity = activity
        self.model = model
        identity = ObjectIdentifier(activity)
    }
}
