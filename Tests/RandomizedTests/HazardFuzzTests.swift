import Foundation
import Testing

@Suite("Randomized hazards: callbacks from deinit, main-actor hops, slow deliverers, effects, sequences, clocks")
struct HazardFuzzTests {
    @Test(
        "random steps of each hazard family keep their oracles, and none hangs",
        arguments: HazardFamily.allCases
    )
    func hazardsKeepTheirOracles(family: HazardFamily) async {
        if let only = FuzzConfiguration.hazardFamily, only != family.rawValue { return }
        guard family != .mainActor || FuzzConfiguration.integer("SOBREIRO_FUZZ_MAIN_ACTOR_IN_PROCESS") == 1 else {
            await mainActorHazardsInAProcessOfTheirOwn()
            return
        }
        if let report = await HazardRun.firstFailure(of: family) {
            print(report)
            Issue.record(Comment(rawValue: report))
        }
    }

    /// The main-actor family parks a job on the main queue for each seed, so that hops run in the order of its steps
    /// rather than the scheduler's. In the test process, that would hold up every main-actor test running beside
    /// it for the whole run; in a process of its own, it holds up nobody. (`SOBREIRO_FUZZ_MAIN_ACTOR_IN_PROCESS=1`
    /// runs it in the test process, to replay under a debugger.)
    private func mainActorHazardsInAProcessOfTheirOwn() async {
        let child = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            if let report = await HazardRun.firstFailure(of: .mainActor) {
                print(report)
                exit(1)
            }
        }
        let report = String(decoding: child?.standardOutputContent ?? [], as: UTF8.self)
        if child?.exitStatus != .exitCode(EXIT_SUCCESS), !report.isEmpty {
            Issue.record(Comment(rawValue: report))
        }
    }
}

@Suite("Randomized trees released while active, with routes, bound models and hooks that write")
struct TreeHazardTests {
    @Test("releasing active trees crashes nothing, and paired changes in hooks are checked when they run")
    func treeHazardsKeepTheirOracles() async {
        if let only = FuzzConfiguration.hazardFamily, only != "tree" { return }
        if FuzzConfiguration.integer("SOBREIRO_FUZZ_TREE_IN_PROCESS") == 1 {
            // To replay under a debugger: a crash then ends the test process.
            if let report = await MainActor.run(body: { TreeStage.firstFailure() }) {
                Issue.record(Comment(rawValue: report))
            }
            return
        }
        // In a process of its own: a library that reads a destroyed scope ends the process. The child writes the
        // step under way into a note that names the seed, which the failure then shows.
        let note = TreeStage.notePath(testProcess: getpid())
        try? FileManager.default.removeItem(atPath: note)
        await #expect(processExitsWith: .success) {
            TreeStage.noteFile = TreeStage.notePath(testProcess: getppid())
            if let report = await MainActor.run(body: { TreeStage.firstFailure() }) {
                TreeStage.write(note: report)
                exit(1)
            }
        }
        if let written = TreeStage.readNote(at: note), !written.isEmpty {
            Issue.record(Comment(rawValue: "The tree hazard run failed or crashed during: " + written))
        }
        try? FileManager.default.removeItem(atPath: note)
    }
}

extension FuzzConfiguration {
    /// `SOBREIRO_FUZZ_HAZARD_SCAN=1` runs every seed of a family even after one failed, and reports them all.
    static var scansHazards: Bool { integer("SOBREIRO_FUZZ_HAZARD_SCAN") == 1 }

    /// `SOBREIRO_FUZZ_HAZARD=<family>` runs that family of hazards alone.
    static var hazardFamily: String? {
        getenv("SOBREIRO_FUZZ_HAZARD").map { String(cString: $0) }
    }
}
