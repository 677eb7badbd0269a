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
    print("       AdapterProbe route <scenario>-<route|floor> <count>   pairs of changes: to a state and back")
    print("       scenario: " + RouteScenario.allCases.map(\.rawValue).joined(separator: ", "))
    print("       AdapterProbe dependency <dependency|stored> <count>   reads 3 levels under the provider")
    exit(2)
}

@MainActor
func cycle(_ scenario: CycleScenario, count: Int) {
    let rig = CycleRig(scenario)
    for _ in 0..<count { rig.cycle() }
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

@MainActor
func route(_ scenario: RouteScenario, routed: Bool, count: Int) {
    var setup = RouteSetup(scenario, routed: routed)
    let children = setup.childCount
    for _ in 0..<count {
        if routed {
            setup.routedChange(toSecond: true)
            setup.routedChange(toSecond: false)
        } else {
            setup.floorChange(toSecond: true)
            setup.floorChange(toSecond: false)
        }
    }
    precondition(setup.childCount == children, "the route and the floor disagree")
}

@MainActor
func readDependency(stored: Bool, count: Int) {
    let (reader, holder, root) = makeDependencyReaders(depth: 3)
    var sum = 0
    for _ in 0..<count {
        sum &+= stored ? holder.service.identifier : reader.dependency(ServiceKey.self).identifier
    }
    precondition(sum == count)
    withExtendedLifetime(root) {}
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
case ("route", let name):
    let routed = name.hasSuffix("-route")
    guard routed || name.hasSuffix("-floor"), let scenario = RouteScenario(rawValue: String(name.dropLast(6))) else {
        fatalError("unknown scenario \(name)")
    }
    route(scenario, routed: routed, count: count)
case ("dependency", let name):
    readDependency(stored: name == "stored", count: count)
case ("ping-pong", StateSequencePingPong.name):
    play(StateSequencePingPong.self, rounds: count)
case ("ping-pong", AsyncStreamPingPong.name):
    play(AsyncStreamPingPong.self, rounds: count)
default:
    fatalError("unknown scenario \(arguments[1]) \(arguments[2])")
}
