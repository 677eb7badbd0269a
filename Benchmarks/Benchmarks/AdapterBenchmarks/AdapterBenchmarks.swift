import AdapterScenarios
import Benchmark
import ScopeKit
import Sobreiro
import Synchronization

// The costs of `SobreiroScopeKit`, each next to a floor measured in the same run: attach + detach cycles of bound
// behaviors (`CycleScenario`), a state sequence against `AsyncStream` (`PingPong`), and writes to a bound model
// (`WriteScenario`). Names read "adapter … | scenario", which `Scripts/adapter.py` relies on.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 200
    )

    for scenario in CycleScenario.allCases {
        Benchmark("adapter attach+detach | \(scenario.rawValue)") { benchmark async in
            nonisolated(unsafe) let benchmark = benchmark
            await MainActor.run {
                let rig = CycleRig(scenario)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { rig.cycle() }
                benchmark.stopMeasurement()
            }
            // The operations of the cycles still running on other threads finish before the next measurement. A run
            // whose effect ended before its task started never calls its operation, so how many will finish is not
            // known: wait until none has finished for 5 ms, for a second at most.
            if scenario.startsOperation { await waitForOperationsToSettle() }
        }
    }

    pingPong(StateSequencePingPong.self)
    pingPong(AsyncStreamPingPong.self)

    for scenario in WriteScenario.allCases {
        Benchmark("adapter write, 1 view | \(scenario.rawValue)") { benchmark async in
            nonisolated(unsafe) let benchmark = benchmark
            await MainActor.run {
                let (model, view, keepAlive) = scenario.makeModel()
                let rendersBefore = view.renderCount
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    model.write { $0.value += 1 }
                }
                benchmark.stopMeasurement()
                precondition(view.renderCount - rendersBefore == benchmark.scaledIterations.count)
                blackHole(keepAlive)
            }
        }
    }
}

/// Times one round of `P`: two values delivered, one each way.
func pingPong<P: PingPong>(_: P.Type) {
    Benchmark("adapter ping-pong round | \(P.name)") { benchmark async in
        let game = await P()
        benchmark.startMeasurement()
        await game.play(rounds: benchmark.scaledIterations.count)
        benchmark.stopMeasurement()
        await game.finish()
    }
}

/// Returns once no effect operation has finished for 5 ms, or after a second.
private func waitForOperationsToSettle() async {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(1)
    var finished = finishedOperations.load(ordering: .relaxed)
    var lastChange = clock.now
    while clock.now - lastChange < .milliseconds(5), clock.now < deadline {
        try? await Task.sleep(for: .milliseconds(1))
        let now = finishedOperations.load(ordering: .relaxed)
        if now != finished {
            finished = now
            lastChange = clock.now
        }
    }
}
