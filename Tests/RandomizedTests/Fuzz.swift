import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How much a run explores, from the environment.
///
/// - `SOBREIRO_FUZZ_SEEDS=<n>`: seeds 1 through n, with longer sequences.
/// - `SOBREIRO_FUZZ_SEED=<s>`: seed s alone, to replay a reported failure.
/// - `SOBREIRO_FUZZ_STEPS=<n>`: the length of each sequence.
/// - `SOBREIRO_FUZZ_TRACE=1`: print each operation as it runs.
/// - `SOBREIRO_FUZZ_KNOWN_ISSUES=1`: stop steering around the issues `KnownIssueTests` reproduces.
///
/// By default: 300 seeds of 300 steps, and 20 concurrent seeds of 4 threads × 3 000 operations, which keeps the
/// target within seconds in a debug build.
enum FuzzConfiguration {
    static func integer(_ name: String) -> UInt64? {
        getenv(name).flatMap { UInt64(String(cString: $0)) }
    }

    /// Unless `SOBREIRO_FUZZ_KNOWN_ISSUES=1`, hooks skip the changes that run into the library issues that
    /// `KnownIssueTests` reproduce, so that the randomized runs keep finding new ones.
    static let avoidsKnownIssues = integer("SOBREIRO_FUZZ_KNOWN_ISSUES") != 1

    /// `SOBREIRO_FUZZ_TRACE=1` prints each operation before it runs, then the hooks it ran: the shrinker cannot
    /// help when the library crashes the process, but the last lines printed name the operation that crashed it.
    static let tracesOperations = integer("SOBREIRO_FUZZ_TRACE") == 1

    static var isExtended: Bool { integer("SOBREIRO_FUZZ_SEEDS") != nil }

    static var seeds: [UInt64] {
        if let seed = integer("SOBREIRO_FUZZ_SEED") { return [seed] }
        return Array(1...max(1, integer("SOBREIRO_FUZZ_SEEDS") ?? 300))
    }

    /// A sequence's first operations do not depend on its length, so a seed replays with any length at least
    /// as long as the one that failed.
    static var steps: Int {
        if let steps = integer("SOBREIRO_FUZZ_STEPS") { return Int(steps) }
        return isExtended || integer("SOBREIRO_FUZZ_SEED") != nil ? 600 : 300
    }

    static var concurrentSeeds: [UInt64] {
        if let seed = integer("SOBREIRO_FUZZ_SEED") { return [seed] }
        return Array(1...max(1, integer("SOBREIRO_FUZZ_SEEDS") ?? 20))
    }

    static var concurrentOperationsPerThread: Int {
        isExtended ? 10_000 : 3_000
    }
}

/// A failure of one sequence: the step at which an invariant broke (the step after the last one, for a leak
/// found once everything was released) and the invariant.
struct SequenceFailure {
    let step: Int
    let violation: Violation
}

@MainActor
enum Fuzz {
    static func operations(seed: UInt64, count: Int) -> [Operation] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in Operation.random(using: &generator) }
    }

    /// Runs `operations` against the library and the reference, checking every invariant after every step.
    static func run(
        _ operations: [Operation],
        avoidingKnownIssues: Bool = FuzzConfiguration.avoidsKnownIssues
    ) async -> SequenceFailure? {
        let world = World(avoidingKnownIssues: avoidingKnownIssues)
        for (step, operation) in operations.enumerated() {
            world.beginStep()
            if FuzzConfiguration.tracesOperations { print("step \(step + 1): \(operation)") }
            world.apply(operation)
            await world.settleEffects()
            if FuzzConfiguration.tracesOperations {
                for line in world.reference.events + world.reference.hookResults { print("    \(line)") }
            }
            if let violation = world.check() { return SequenceFailure(step: step, violation: violation) }
            await yieldMainActor(after: step, period: 1)
        }
        return world.finish().map { SequenceFailure(step: operations.count, violation: $0) }
    }

    /// Runs `operations`; if they fail, shrinks them and returns a report that names the seed, the failure, and
    /// the shortest failing sequence found, as Swift that pastes into a test.
    static func check(
        _ operations: [Operation],
        seed: UInt64?,
        avoidingKnownIssues: Bool = FuzzConfiguration.avoidsKnownIssues
    ) async -> String? {
        guard let failure = await run(operations, avoidingKnownIssues: avoidingKnownIssues) else { return nil }
        let kind = failure.violation.kind
        let shrunk = await shrink(operations, failingAt: failure.step, simpler: \.simplifications) { candidate in
            guard let again = await run(candidate, avoidingKnownIssues: avoidingKnownIssues),
                again.violation.kind == kind
            else { return nil }
            return again.step
        }
        let final = await run(shrunk, avoidingKnownIssues: avoidingKnownIssues)?.violation ?? failure.violation
        return report(seed: seed, length: operations.count, failure: failure, shrunk: shrunk, finalViolation: final)
    }

    static func report(
        seed: UInt64?,
        length: Int,
        failure: SequenceFailure,
        shrunk: [Operation],
        finalViolation: Violation
    ) -> String {
        let origin = seed.map { "seed \($0) (replay with SOBREIRO_FUZZ_SEED=\($0))" } ?? "the given operations"
        let name = seed.map { "seed\($0)" } ?? "shrunkSequence"
        let lines = shrunk.map { "        \($0)," }.joined(separator: "\n")
        return """
            Randomized run failed: \(origin), at step \(failure.step + 1) of \(length):
              \(failure.violation)
            Shrunk to \(shrunk.count) operation(s), which fail with:
              \(finalViolation)
            As a test:

            @Test("\(finalViolation.kind): shrunk from \(seed.map { "seed \($0)" } ?? "a sequence")") @MainActor
            func \(name)() async {
                await replay(operations: [
            \(lines)
                ])
            }
            """
    }
}

/// Runs one sequence of operations against the library and the reference, and records an issue, with the
/// shrunk sequence, if any invariant breaks.
@MainActor
func replay(
    operations: [Operation],
    avoidingKnownIssues: Bool = FuzzConfiguration.avoidsKnownIssues,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    if let report = await Fuzz.check(operations, seed: nil, avoidingKnownIssues: avoidingKnownIssues) {
        Issue.record(Comment(rawValue: report), sourceLocation: sourceLocation)
    }
}

/// Runs the sequence of one seed, as the randomized test does.
@MainActor
func replay(
    seed: UInt64,
    steps: Int = FuzzConfiguration.steps,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    if let report = await Fuzz.check(Fuzz.operations(seed: seed, count: steps), seed: seed) {
        Issue.record(Comment(rawValue: report), sourceLocation: sourceLocation)
    }
}
