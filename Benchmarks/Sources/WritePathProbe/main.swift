import Contenders
import ScopeKit

#if canImport(Glibc)
    import Glibc
#endif

// Runs one core write path a given number of times, for instruction counts under
// `valgrind --tool=callgrind`. `Scripts/callgrind.sh` runs it twice with different counts and divides the
// difference, which cancels out start-up.
let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    print("usage: WritePathProbe <Sobreiro|Floor|WeakFloor|OpenCombine> <path> <count>")
    print("       path: write0, write1, fanout100, dedup, chain10, churn10 or churn10000, or live, which")
    print("       exits while <count> subscriptions are live, for valgrind's count of bytes in use at exit")
    print("       WritePathProbe <Sobreiro|OpenCombine> <pair path> <count>   (a two-field state)")
    print("       pair path: pair-write0, pair-whole, pair-projected, pair-whole-other or pair-projected-other")
    print("       WritePathProbe <Sobreiro|Floor> big<N> <count>   (a state of N items; each write changes one)")
    print("       WritePathProbe ScopeKit tree <count>   (activates and deactivates a tree of 100 scopes)")
    exit(2)
}

func run<C: Contender>(_: C.Type, path: String, count: Int) {
    let store = C(value: 0)
    let sink = Sink()
    let subscribers: Int
    switch path {
    case "write0", "chain10", "live": subscribers = 0
    case "write1", "dedup": subscribers = 1
    case "fanout100": subscribers = 100
    case "churn10": subscribers = 10
    case "churn10000": subscribers = 10_000
    default: fatalError("unknown path \(path)")
    }
    if path == "live" {
        let handles = (0..<count).map { _ in store.attach(sink) }
        withExtendedLifetime(handles) { exit(0) }
    }
    let handles = (0..<subscribers).map { _ in store.attach(sink) }
    if path == "chain10" {
        let stores = [store] + (1..<10).map { _ in C(value: 0) }
        let links = zip(stores, stores.dropFirst()).map { $0.chain(to: $1) }
        let tail = stores[9].attach(sink)
        for index in 0..<count { store.write(index + 1) }
        withExtendedLifetime((stores, links, tail)) {}
        return
    }
    if path.hasPrefix("churn") {
        for _ in 0..<count { store.detach(store.attach(sink)) }
        return
    }
    let step = path == "dedup" ? 0 : 1
    for index in 0..<count {
        store.write(index * step)
    }
    withExtendedLifetime(handles) {}
}

/// Writes a two-field state: `pair-write0` with no subscriber, the others with one view of the whole state
/// (`whole`) or of `value` alone (`projected`); the `-other` paths change only the other field.
func runProjection<C: ProjectingContender>(_: C.Type, path: String, count: Int) {
    let store = C(value: 0, other: 0)
    let sink = Sink()
    let handle: AnyObject?
    switch path {
    case "pair-write0": handle = nil
    case "pair-whole", "pair-whole-other": handle = store.attachWholeState(sink)
    case "pair-projected", "pair-projected-other": handle = store.attachValue(sink)
    default: fatalError("unknown path \(path)")
    }
    if path.hasSuffix("-other") {
        for index in 0..<count { store.write(other: index + 1) }
    } else {
        for index in 0..<count { store.write(value: index + 1) }
    }
    withExtendedLifetime(handle) {}
}

/// Writes one item of a state of `items` items, with one view, `count` times, each time a new value at the next
/// index.
func runBigState<C: BigStateContender>(_: C.Type, items: Int, count: Int) {
    let store = C(count: items)
    for index in 0..<count { store.write(index + 1, at: index % items) }
    withExtendedLifetime(store) {}
}

/// Activates and deactivates a tree of 100 scopes `count` times: `valgrind` shows the same number of allocations
/// for any `count`, so the cycle itself allocates nothing.
@MainActor
func cycleTree(count: Int) {
    let root = RootScope()
    let top = Scope()
    var scopes = [top]
    while scopes.count < 100 {
        let child = Scope()
        scopes[(scopes.count - 1) / 10].host(child)
        scopes.append(child)
    }
    for _ in 0..<count {
        root.host(top)
        top.detach()
    }
}

switch arguments[1] {
case "ScopeKit": MainActor.assumeIsolated { cycleTree(count: count) }
case "Sobreiro" where arguments[2].hasPrefix("big"), "Floor" where arguments[2].hasPrefix("big"):
    guard let items = Int(arguments[2].dropFirst(3)), items > 0 else { fatalError("unknown path \(arguments[2])") }
    if arguments[1] == "Sobreiro" {
        runBigState(SobreiroBigState.self, items: items, count: count)
    } else {
        runBigState(BigStateFloor.self, items: items, count: count)
    }
case "Sobreiro" where arguments[2].hasPrefix("pair-"):
    runProjection(SobreiroProjectingContender.self, path: arguments[2], count: count)
case "OpenCombine" where arguments[2].hasPrefix("pair-"):
    runProjection(OpenCombineProjectingContender.self, path: arguments[2], count: count)
case "Sobreiro": run(SobreiroContender.self, path: arguments[2], count: count)
case "Floor": run(FloorContender.self, path: arguments[2], count: count)
case "WeakFloor": run(WeakFloorContender.self, path: arguments[2], count: count)
case "OpenCombine": run(OpenCombineContender.self, path: arguments[2], count: count)
default: fatalError("unknown contender \(arguments[1])")
}
