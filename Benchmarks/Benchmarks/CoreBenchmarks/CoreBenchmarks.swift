import Benchmark
import Contenders
import Dispatch

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )
    register(SobreiroContender.self)
    register(WeakFloorContender.self)
    register(FloorContender.self)
    register(OpenCombineContender.self)
    register(ObservationContender.self)
    registerProjections(SobreiroProjectingContender.self)
    registerProjections(OpenCombineProjectingContender.self)
    registerBigState(SobreiroBigState.self)
    registerBigState(BigStateFloor.self)
}

/// Registers every scenario for `C`. Names read "scenario | contender", which `Scripts/ratios.py` relies on.
func register<C: Contender>(_: C.Type) {
    func scenario(_ name: String, _ kind: Scenario, _ body: @escaping @Sendable (Benchmark) -> Void) {
        guard C.supports(kind) else { return }
        Benchmark("\(name) | \(C.name)") { benchmark in body(benchmark) }
    }

    scenario("1 write, 0 subscribers", .write) { benchmark in
        let store = C(value: 0)
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations { store.write(index + 1) }
        benchmark.stopMeasurement()
        blackHole(store)
    }
    scenario("2 write, 1 render", .write) { benchmark in
        let store = C(value: 0)
        let sink = Sink()
        let handle = store.attach(sink)
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations { store.write(index + 1) }
        benchmark.stopMeasurement()
        blackHole(handle)
        precondition(sink.renderCount > benchmark.scaledIterations.count)
    }
    scenario("3 write, 100 renders", .fanOut) { benchmark in
        let store = C(value: 0)
        let sink = Sink()
        let handles = (0..<100).map { _ in store.attach(sink) }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations { store.write(index + 1) }
        benchmark.stopMeasurement()
        blackHole(handles)
    }
    scenario("4 duplicate write", .dedup) { benchmark in
        let store = C(value: 7)
        let sink = Sink()
        let handle = store.attach(sink)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { store.write(7) }
        benchmark.stopMeasurement()
        blackHole(handle)
        precondition(sink.renderCount == 1)
    }
    scenario("5 chain of 10 models", .chain) { benchmark in
        let stores = (0..<10).map { _ in C(value: 0) }
        let links = zip(stores, stores.dropFirst()).map { $0.chain(to: $1) }
        let sink = Sink()
        let handle = stores[9].attach(sink)
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations { stores[0].write(index + 1) }
        benchmark.stopMeasurement()
        blackHole((links, handle))
    }
    scenario("6 contended writes, 2 threads, 1 render", .contended) { benchmark in
        let store = C(value: 0)
        let sink = Sink()
        let handle = store.attach(sink)
        let perThread = benchmark.scaledIterations.count / 2
        benchmark.startMeasurement()
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for index in 0..<perThread { store.write(index * 2 + thread + 1) }
        }
        benchmark.stopMeasurement()
        blackHole(handle)
    }
    for live in [10, 10_000] {
        scenario("7 subscribe+unsubscribe at \(live)", .churn) { benchmark in
            let store = C(value: 0)
            let sink = Sink()
            let handles = (0..<live).map { _ in store.attach(sink) }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                store.detach(store.attach(sink))
            }
            benchmark.stopMeasurement()
            blackHole(handles)
        }
    }
}

/// Registers the projection scenarios for `C`: one view follows only `value` of a two-field state ("projection")
/// or the whole state ("whole state"), and each write changes either `value` or only `other`.
func registerProjections<C: ProjectingContender>(_: C.Type) {
    func scenario(_ name: String, projected: Bool, writesValue: Bool) {
        Benchmark("\(name) | \(C.name)") { benchmark in
            let store = C(value: 0, other: 0)
            let sink = Sink()
            let handle = projected ? store.attachValue(sink) : store.attachWholeState(sink)
            benchmark.startMeasurement()
            if writesValue {
                for index in benchmark.scaledIterations { store.write(value: index + 1) }
            } else {
                for index in benchmark.scaledIterations { store.write(other: index + 1) }
            }
            benchmark.stopMeasurement()
            blackHole(handle)
            let rendersEveryWrite = writesValue || !projected
            precondition(sink.renderCount == (rendersEveryWrite ? benchmark.scaledIterations.count + 1 : 1))
        }
    }

    scenario("8a projection, write value, 1 render", projected: true, writesValue: true)
    scenario("8b whole state, write value, 1 render", projected: false, writesValue: true)
    scenario("9a projection, write other field, 0 renders", projected: true, writesValue: false)
    scenario("9b whole state, write other field, 1 render", projected: false, writesValue: false)
}

/// Registers the big-state scenarios for `C`: a state of N items with one view, where each write changes one item.
func registerBigState<C: BigStateContender>(_: C.Type) {
    for items in [10, 1_000, 100_000] {
        // A write to the largest state copies and compares 100 000 items: single writes, not thousands, per sample.
        let configuration = Benchmark.Configuration(scalingFactor: items == 100_000 ? .one : .kilo)
        Benchmark("10 big state of \(items) items, change one | \(C.name)", configuration: configuration) { benchmark in
            let store = C(count: items)
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations { store.write(index + 1, at: index % items) }
            benchmark.stopMeasurement()
            blackHole(store)
        }
    }
}
