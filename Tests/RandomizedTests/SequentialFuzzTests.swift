import Testing

@Suite("Randomized sequences against a reference model")
@MainActor
struct SequentialFuzzTests {
    @Test("after every step, models, views, subscriptions, the tree, hooks and scoped work match the reference")
    func randomSequencesKeepEveryInvariant() async {
        for seed in FuzzConfiguration.seeds {
            let operations = Fuzz.operations(seed: seed, count: FuzzConfiguration.steps)
            if let report = await Fuzz.check(operations, seed: seed) {
                print(report)
                Issue.record(Comment(rawValue: report))
                return
            }
        }
    }
}
