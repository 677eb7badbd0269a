import AdapterScenarios
import Dispatch
import ScopeKit

#if canImport(Glibc)
    import Glibc
#endif

// Runs one adapter scenario a given number of times, for `valgrind` (allocations) and `valgrind --tool=callgrind`
// (instructions). Run it twice with different counts and divide the difference, which cancels out set-up.
let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    print("usage: AdapterProbe cycle <scenario> <count>       attach + detach cycles of one behavior")
    print("       scenario: " + CycleScenario.allCases.map(\.rawValue).joined(separator: ", "))
    print("       AdapterProbe write <scenario> <count>       writes to a model with one view")
    print("       scenario: " + WriteScenario.allCases.map(\.rawValue).joined(separator: ", "))
    print("       AdapterProbe ping-pong <StateSequence|AsyncStream> <rounds>")
    exit(2)
}

@MainActor
func cycle(_ scenario: CycleScenario, count: Int) {
    let root = RootScope()
    let behavior = scenario.makeBehavior(neighboursIn: root)
    for _ in 0..<count {
        behavior.attach(to: root)
        behavior.detach()
    }
}

@MainActor
func write(_ scenario: WriteScenario, count: Int) {
    let (model, view, keepAlive) = scenario.makeModel()
    for _ in 0..<count {
        model.write { $0.value += 1 }
    }
    precondition(view.renderCount == count + 1)
    withExtendedLifetime(keepAlive) {}
}

/// Plays on the global executor while the main thread waits: valgrind crashes on a top-level `await`.
func play<P: PingPong>(_: P.Type, rounds: Int) {
    let done = DispatchSemaphore(value: 0)
    Task {
        let game = await P()
        await game.play(rounds: rounds)
        await game.finish()
        done.signal()
    }
    done.wait()
}

switch (arguments[1], arguments[2]) {
case ("cycle", let name):
    guard let scenario = CycleScenario(rawValue: name) else { fatalError("unknown scenario \(name)") }
    cycle(scenario, count: count)
case ("write", let name):
    guard let scenario = WriteScenario(rawValue: name) else { fatalError("unknown scenario \(name)") }
    write(scenario, count: count)
case ("ping-pong", StateSequencePingPong.name):
    play(StateSequencePingPong.self, rounds: count)
case ("ping-pong", AsyncStreamPingPong.name):
    play(AsyncStreamPingPong.self, rounds: count)
default:
    fatalError("unknown scenario \(arguments[1]) \(arguments[2])")
}
