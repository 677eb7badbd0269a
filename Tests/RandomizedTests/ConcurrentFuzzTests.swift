import Dispatch
import Foundation
import Testing

@Suite("Randomized threads against the delivery guarantees")
struct ConcurrentFuzzTests {
    @Test("threads writing, subscribing and following at once converge, in order, never overlapping, leaking nothing")
    func concurrentRunsConverge() async {
        // On a thread of its own, not one of the few threads that run every test's tasks: a race that holds one of
        // those for seconds would starve the tests that await work from other tasks.
        let report: String? = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Self.firstFailure()) }.start()
        }
        if let report {
            print(report)
            Issue.record(Comment(rawValue: report))
        }
    }

    /// Runs every configured seed; the report of the first that fails, or `nil`.
    private static func firstFailure() -> String? {
        for seed in FuzzConfiguration.concurrentSeeds {
            let run = ConcurrentRun(seed: seed, operationsPerThread: FuzzConfiguration.concurrentOperationsPerThread)
            let problems = run.run()
            guard problems.isEmpty else {
                return """
                    Concurrent run failed: seed \(seed) (run it alone with SOBREIRO_FUZZ_SEED=\(seed); threads \
                    interleave differently each time):
                    \(problems.prefix(5).joined(separator: "\n"))
                    """
            }
        }
        return nil
    }
}
