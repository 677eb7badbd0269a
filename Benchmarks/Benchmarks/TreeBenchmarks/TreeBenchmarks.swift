import AdapterScenarios
import Benchmark
import ScopeKit
import SobreiroScopeKit

// The tree as an app's backbone, each scenario next to its floor in the same run: attach + detach beside 1 000
// siblings against alone, stacks and lists of children from state against a hand-written `host`/`evict` loop, and
// a dependency read against a stored property. Names read "tree … | scenario", which `Scripts/tree.py` relies on.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        maxDuration: .seconds(2),
        maxIterations: 200
    )

    for scenario in [CycleScenario.emptyBehavior, .emptyBehaviorAmong1000Siblings] {
        Benchmark("tree attach+detach | \(scenario.rawValue)", configuration: .init(scalingFactor: .kilo)) {
            benchmark async in
            nonisolated(unsafe) let benchmark = benchmark
            await MainActor.run {
                let rig = CycleRig(scenario)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { rig.cycle() }
                benchmark.stopMeasurement()
            }
        }
    }

    // One iteration is two changes: to the second state and back (a push and a pop; a row replaced and restored).
    for scenario in RouteScenario.allCases {
        for routed in [true, false] {
            let name = "tree route | \(scenario.rawValue) \(routed ? "route" : "floor")"
            Benchmark(name, configuration: .init(scalingFactor: scenario == .stack ? .kilo : .one)) {
                benchmark async in
                nonisolated(unsafe) let benchmark = benchmark
                await MainActor.run {
                    var setup = RouteSetup(scenario, routed: routed)
                    let children = setup.childCount
                    benchmark.startMeasurement()
                    if routed {
                        for _ in benchmark.scaledIterations {
                            setup.routedChange(toSecond: true)
                            setup.routedChange(toSecond: false)
                        }
                    } else {
                        for _ in benchmark.scaledIterations {
                            setup.floorChange(toSecond: true)
                            setup.floorChange(toSecond: false)
                        }
                    }
                    benchmark.stopMeasurement()
                    precondition(setup.childCount == children, "the route and the floor disagree")
                }
            }
        }
    }

    Benchmark(
        "tree dependency read | dependency, 3 levels under its provider", configuration: .init(scalingFactor: .kilo)
    ) {
        benchmark async in
        nonisolated(unsafe) let benchmark = benchmark
        await MainActor.run {
            let (reader, _, root) = makeDependencyReaders(depth: 3)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(reader.dependency(ServiceKey.self))
            }
            benchmark.stopMeasurement()
            withExtendedLifetime(root) {}
        }
    }

    Benchmark("tree dependency read | stored property", configuration: .init(scalingFactor: .kilo)) { benchmark async in
        nonisolated(unsafe) let benchmark = benchmark
        await MainActor.run {
            let (_, holder, root) = makeDependencyReaders(depth: 3)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(holder.service)
            }
            benchmark.stopMeasurement()
            withExtendedLifetime(root) {}
        }
    }
}
