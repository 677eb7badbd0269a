import Dispatch
import Foundation
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport

/// A randomized run on several threads at once: each thread writes to shared models, subscribes and drops its
/// own views, and changes what its own model follows, while views write re-entrantly from their renders.
///
/// Nothing is predicted step by step, since the interleaving is the scheduler's. Once every thread has
/// returned, the run checks what the contract promises at quiescence: no update lost (T1), no rolled-back or
/// uncommitted state seen (T2, T3), every live view and follower on its model's latest state (D4, C1), the
/// renders of each view in order and never overlapping (D3), no deadlock (D6), and nothing alive after release.
struct ConcurrentRun: Sendable {
    static let threads = 4
    static let models = 3
    static let viewsPerThread = 2
    /// A safety net that ends the process, naming the seed, if the threads of one run never finish: far beyond
    /// what a run takes on a busy machine, which is a few seconds.
    static let watchdogSeconds = 10 * patience

    let seed: UInt64
    let operationsPerThread: Int

    /// Re-entrant increments that views make from their renders, within a budget so that the run settles.
    final class Bounces: Sendable {
        private let budget = Atomic<Int>(300)
        private let counts = Locked([Int](repeating: 0, count: ConcurrentRun.models))

        /// Increments `model` from inside a render, if the budget allows.
        func bounce(_ model: PlainTally) {
            guard budget.subtract(1, ordering: .relaxed).newValue >= 0 else { return }
            model.write { $0.count += 1 }
            counts.withLock { $0[model.state.slot] += 1 }
        }

        var perModel: [Int] { counts.withLock { $0 } }
    }

    /// A view a thread owns, and whether it is subscribed when the thread ends.
    struct OwnedView: Sendable {
        let probe: AnyProbe
        let model: Int
        var isSubscribed = false
        var token: StateSubscription?
    }

    /// What a thread did, which the quiescent state is checked against.
    struct ThreadReport: Sendable {
        var increments = [Int](repeating: 0, count: ConcurrentRun.models)
        var views: [OwnedView] = []
        var dropped: [WeakObject] = []
        /// The model whose subscriptions this thread owns, if any.
        var follower: Int?
        var wholeFollows: Set<Int> = []
        var projectionFollows: [Int: Int] = [:]
    }

    /// Runs the threads and checks the quiescent state, then releases everything and checks that it is gone.
    /// Returns the broken promises, if any.
    func run() -> [String] {
        var survivors: [WeakObject] = []
        let problems = race(survivors: &survivors)
        let leaks = survivors.filter { $0.object != nil }.map { "\($0.name) outlived the run" }
        return (problems + leaks).map { "seed \(seed): \($0)" }
    }

    /// What the threads share.
    private final class Stage: Sendable {
        let models = (0..<ConcurrentRun.models).map { PlainTally(slot: $0) }
        let bounces = Bounces()
        let reports = Locked<[ThreadReport]>([])
    }

    private func race(survivors: inout [WeakObject]) -> [String] {
        let stage = Stage()
        let (seed, operations) = (seed, operationsPerThread)
        // Threads of their own, not dispatch workers: on Linux those are the threads of the cooperative pool, and a
        // worker that waits for another worker's render would wait for a thread the pool may never give it.
        let watchdog = Watchdog(seconds: Int(Self.watchdogSeconds)) {
            "seed \(seed): the threads did not finish within \(Int(Self.watchdogSeconds)) s: a deadlock or a "
                + "livelock (D6)"
        }
        let threads = (0..<Self.threads).map { thread in
            onAnotherThread {
                var worker = Worker(thread: thread, seed: seed, models: stage.models, bounces: stage.bounces)
                worker.run(operations: operations)
                let report = worker.report
                stage.reports.withLock { $0.append(report) }
            }
        }
        for done in threads { done.wait() }
        watchdog.disarm()
        let reports = stage.reports.withLock { $0 }
        survivors = stage.models.enumerated().map { WeakObject(name: "model \($0.offset)", object: $0.element) }
        for report in reports {
            survivors += report.dropped
            survivors += report.views.map { WeakObject(name: "a view", object: $0.probe.object) }
        }
        return Self.check(models: stage.models, reports: reports, bounces: stage.bounces.perModel)
    }
}

/// Stops the process, naming what hung, if it is not disarmed in time: a deadlocked race would otherwise hang
/// the test run without saying which seed did it. It waits on a thread of its own, which a deadlock cannot
/// starve.
final class Watchdog: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(seconds: Int, message: @escaping @Sendable () -> String) {
        let finished = finished
        Thread {
            guard finished.wait(timeout: .now() + .seconds(seconds)) == .timedOut else { return }
            fatalError(message())
        }.start()
    }

    func disarm() {
        finished.signal()
    }
}

/// A weak reference that can cross threads.
struct WeakObject: @unchecked Sendable {
    let name: String
    weak var object: AnyObject?
}
