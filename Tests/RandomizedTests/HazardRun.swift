import Dispatch
import Foundation
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport

/// Runs the hazard sequences of one family, one seed after another, on a thread of their own.
///
/// A hazard may deadlock the thread that runs it, or leave a consumer suspended forever. So the steps run on a
/// driver thread, never on the main thread or the cooperative pool, and a supervisor gives each step
/// `stepTimeout` seconds: a step that does not end becomes a reported failure naming the seed and the step,
/// and the stuck thread is abandoned instead of hanging the test process. Before each step the driver writes
/// it into `CrashNote`, which a crash of the process prints.
enum HazardRun {
    /// How many seeds and steps each family runs by default, within the CI budget of a debug build.
    static func seeds(for family: HazardFamily) -> [UInt64] {
        if let seed = FuzzConfiguration.integer("SOBREIRO_FUZZ_SEED") { return [seed] }
        let base: UInt64 =
            switch family {
            case .clock: 4
            case .asyncWriters: 6
            case .sequences: 12
            default: 25
            }
        return Array(1...max(1, FuzzConfiguration.integer("SOBREIRO_FUZZ_SEEDS") ?? base))
    }

    static var steps: Int {
        FuzzConfiguration.integer("SOBREIRO_FUZZ_STEPS").map(Int.init) ?? (FuzzConfiguration.isExtended ? 120 : 40)
    }

    /// Longer than any step's own waits (`waitLimit`). A safety net, not a budget: a step takes milliseconds, and
    /// only a step that never ends, on however busy a machine, reaches it.
    static let stepTimeout: Double = 2 * patience

    /// How long a step waits for threads and tasks before it calls them stuck. A safety net too: the whole suite at
    /// once, beside other work, can starve two cores for seconds, and a sanitizer slows everything; a step that
    /// keeps its oracles never waits this long, so only a failing run pays it.
    static let waitLimit: Double = patience

    /// Runs every seed of `family`; the report of the first failure, or `nil`.
    static func firstFailure(of family: HazardFamily) async -> String? {
        await withCheckedContinuation { continuation in
            let resumed = Counter()
            let finish: @Sendable (String?) -> Void = { report in
                guard resumed.increment() == 1 else { return }
                continuation.resume(returning: report)
            }
            let progress = Progress()
            let driver = Thread {
                finish(drive(family, progress: progress))
            }
            driver.stackSize = 4 << 20
            driver.start()
            Thread { supervise(progress, finish: finish) }.start()
        }
    }

    /// What the driver is doing, for the supervisor.
    final class Progress: Sendable {
        let beat = DispatchSemaphore(value: 0)
        let current = Locked<(description: String, isDone: Bool)>(("starting", false))

        func step(_ description: String) {
            current.withLock { $0.description = description }
            CrashNote.set(description)
            beat.signal()
        }

        func done() {
            current.withLock { $0.isDone = true }
            beat.signal()
        }
    }

    private static func supervise(_ progress: Progress, finish: @Sendable (String?) -> Void) {
        while true {
            if progress.beat.wait(timeout: .now() + stepTimeout) == .timedOut {
                let step = progress.current.withLock { $0.description }
                finish(
                    "Hazard run hung: \(step) did not end within \(Int(stepTimeout)) s (a deadlock, or a waiter "
                        + "that is never resumed). Its thread is abandoned."
                )
                return
            }
            if progress.current.withLock({ $0.isDone }) { return }
        }
    }

    private static func drive(_ family: HazardFamily, progress: Progress) -> String? {
        defer { progress.done() }
        var reports: [String] = []
        for seed in seeds(for: family) {
            let hazards = Hazard.sequence(family, seed: seed, count: steps)
            let world = HazardWorld(family: family)
            let origin =
                "\(family) seed \(seed) (replay with SOBREIRO_FUZZ_HAZARD=\(family) SOBREIRO_FUZZ_SEED=\(seed))"
            var firstFailure: Int?
            // A seed stops at the step that broke something, since later steps may each wait out `waitLimit` on
            // the same fault; with `SOBREIRO_FUZZ_HAZARD_SCAN=1` it runs to its end, so that its report lists every
            // kind of failure it reaches, each at the step that first showed it.
            for (index, hazard) in hazards.enumerated() {
                if firstFailure != nil && !FuzzConfiguration.scansHazards { break }
                progress.step("\(origin), step \(index + 1): \(hazard)")
                if FuzzConfiguration.tracesOperations {
                    print("\(Date().timeIntervalSince1970) \(family) seed \(seed) step \(index + 1): \(hazard)")
                }
                world.findings.step = index + 1
                world.apply(hazard)
                if firstFailure == nil, world.findings.first() != nil { firstFailure = index }
            }
            progress.step("\(origin), final checks")
            world.findings.step = hazards.count + 1
            world.finish()
            guard let problems = world.findings.distinct() else { continue }
            let shown = hazards.prefix((firstFailure ?? hazards.count - 1) + 1)
            reports.append(report(origin, problems, shown))
            if !FuzzConfiguration.scansHazards { break }
        }
        return reports.isEmpty ? nil : reports.joined(separator: "\n\n")
    }

    private static func report(_ origin: String, _ problems: String, _ hazards: ArraySlice<Hazard>) -> String {
        """
        Hazard run failed: \(origin):
        \(problems)
        Steps up to the first failure:
        \(hazards.map { "    \($0)," }.joined(separator: "\n"))
        """
    }
}

/// The broken promises a hazard run noticed, from any thread: renders, handlers and reducers report here.
final class Findings: Sendable {
    private let list = Locked<[(step: Int, problem: String)]>([])
    private let current = Locked(0)

    /// The step under way, which new findings are attributed to.
    var step: Int {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    func record(_ problem: String) {
        let step = step
        list.withLock { $0.append((step, problem)) }
    }

    func first() -> String? {
        list.withLock { $0.first?.problem }
    }

    /// Each kind of finding once (findings that differ only in numbers are one kind), with the step that first
    /// showed it; `nil` if there is none.
    func distinct() -> String? {
        let all = list.withLock { $0 }
        guard !all.isEmpty else { return nil }
        var seen: Set<String> = []
        var lines: [String] = []
        for (step, problem) in all where seen.insert(String(problem.filter { !$0.isNumber })).inserted {
            lines.append("  step \(step): \(problem)")
        }
        return lines.joined(separator: "\n")
    }
}

/// Waits until `condition` holds, for at most `seconds`; whether it held.
func waitUntil(seconds: Double = HazardRun.waitLimit, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(200)
    }
    return true
}

/// Runs `body` on the main actor from the driver thread, and waits for it.
func onMain<T: Sendable>(_ body: @MainActor () -> T) -> T {
    DispatchQueue.main.sync { MainActor.assumeIsolated(body) }
}

/// Runs the jobs already queued on the main queue, and those they queue in turn, a few rounds deep.
func drainMainQueue() {
    for _ in 0..<4 { DispatchQueue.main.sync {} }
}

/// A counter that closures on several threads share.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    /// Adds one; the new count.
    @discardableResult
    func increment() -> Int {
        count.add(1, ordering: .acquiringAndReleasing).newValue
    }

    var value: Int { count.load(ordering: .acquiring) }
}
