import Testing

@Suite("Randomized threads against the delivery guarantees")
struct ConcurrentFuzzTests {
    @Test("threads writing, subscribing and following at once converge, in order, never overlapping, leaking nothing")
    func concurrentRunsConverge() {
        for seed in FuzzConfiguration.concurrentSeeds {
            let run = ConcurrentRun(seed: seed, operationsPerThread: FuzzConfiguration.concurrentOperationsPerThread)
            let problems = run.run()
            guard problems.isEmpty else {
                let report = """
                    Concurrent run failed: seed \(seed) (run it alone with SOBREIRO_FUZZ_SEED=\(seed); threads \
                    interleave differently each time):
                    \(problems.prefix(5).joined(separator: "\n"))
                    """
                print(report)
                Issue.record(Comment(rawValue: report))
                return
            }
        }
    }
}
