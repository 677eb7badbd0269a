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
        if let report = await HazardRun.firstFailure(of: family) {
            print(report)
            Issue.record(Comment(rawValue: report))
        }
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
