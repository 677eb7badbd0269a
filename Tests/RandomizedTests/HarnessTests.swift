import SobreiroScopeKit
import Testing

@Suite("The randomized harness")
@MainActor
struct HarnessTests {
    @Test("a seed always yields the same operations, and a longer sequence starts with the shorter one")
    func generationIsDeterministic() {
        let short = Fuzz.operations(seed: 42, count: 100)
        let long = Fuzz.operations(seed: 42, count: 300)
        #expect(Fuzz.operations(seed: 42, count: 100) == short)
        #expect(Array(long.prefix(100)) == short)
        #expect(Fuzz.operations(seed: 43, count: 100) != short)
    }

    @Test(
        "operations print as the Swift expressions that build them",
        arguments: [
            (Operation.write(model: 0, value: 3), ".write(model: 0, value: 3)"),
            (
                .makeView(view: 2, of: .projection(1), reaction: .echo(into: 0)),
                ".makeView(view: 2, of: .projection(1), reaction: .echo(into: 0))"
            ),
            (.follow(follower: 1, publisher: 1, form: .method), ".follow(follower: 1, publisher: 1, form: .method)"),
            (
                .makeNode(node: 4, model: .bound(upstream: 2, strategy: .continueOnNewState)),
                ".makeNode(node: 4, model: .bound(upstream: 2, strategy: .continueOnNewState))"
            ),
            (
                .arm(node: 1, hook: .didDeactivate, action: .evict(node: 3, from: .root)),
                ".arm(node: 1, hook: .didDeactivate, action: .evict(node: 3, from: .root))"
            ),
            (.replaceRoot, ".replaceRoot"),
        ]
    )
    func operationsPrintAsSwift(operation: Operation, source: String) {
        #expect("\(operation)" == source)
    }

    @Test("shrinking keeps the shortest subsequence that fails, and cuts everything after the failure")
    func shrinkingFindsTheCulprits() async {
        // Given a sequence that fails at the first 7 preceded, somewhere, by a 3 and then a 5.
        var generator = SplitMix64(seed: 9)
        let noise = (0..<40).map { _ in [0, 1, 2, 4, 6, 8][generator.below(6)] }
        let sequence = noise[..<10] + [3] + noise[10..<25] + [5] + noise[25...] + [7, 3, 5, 7] + noise
        func failingIndex(_ candidate: [Int]) -> Int? {
            var needed = [3, 5, 7][...]
            for (index, element) in candidate.enumerated() where element == needed.first {
                needed.removeFirst()
                if needed.isEmpty { return index }
            }
            return nil
        }
        let failure = failingIndex(Array(sequence))!

        // When it is shrunk.
        let shrunk = await shrink(Array(sequence), failingAt: failure) { failingIndex($0) }

        // Then the three culprits remain, in order.
        #expect(shrunk == [3, 5, 7])
    }

    @Test("a failure report names the seed and lists the shrunk operations as a test to paste")
    func reportsArePasteable() {
        let report = Fuzz.report(
            seed: 7,
            length: 200,
            failure: SequenceFailure(step: 41, violation: Violation(kind: "tree", message: "n3 is active")),
            shrunk: [.makeNode(node: 0, model: .none), .attach(node: 0, to: .root)],
            finalViolation: Violation(kind: "tree", message: "n2 is active")
        )
        #expect(report.contains("seed 7 (replay with SOBREIRO_FUZZ_SEED=7), at step 42 of 200"))
        #expect(report.contains("[tree] n3 is active"))
        #expect(report.contains("        .makeNode(node: 0, model: .none),\n        .attach(node: 0, to: .root),"))
        #expect(report.contains("await replay(operations: ["))
    }
}
