import Benchmark
import Dispatch
import Sobreiro
import Synchronization

// The path from a write on a background thread to a view isolated to the main actor, for Sobreiro and for the least
// a correct hop does (`MainQueueFloor`), in the same run. Names read "scenario | contender", which
// `Scripts/main-actor.py` relies on.
//
// package-benchmark calls a synchronous benchmark closure from its runner's task, on a thread of Swift's global
// executor (a libdispatch worker on Linux), while the main queue, which runs the main actor's jobs, stays free:
// `make` checks that the closure is not on the main queue. (On Linux the async `main` ends in `dispatch_main()`, so
// the first thread waits in `sigsuspend` and libdispatch's worker threads drain the main queue.) The closure's thread
// is the background writer. It waits for each render on a semaphore that the view signals, the same wake-up for both
// contenders.

/// The state both contenders deliver.
struct Counter: ViewState {
    var value: Int
}

/// The main-actor view both contenders render into. It counts its renders, and signals `arrived` when it renders
/// the value in `awaited`, which the writer stores before writing and then waits for.
@MainActor
final class MainView: MainActorStatefulView {
    nonisolated let awaited = Atomic<Int>(-1)
    nonisolated let arrived = DispatchSemaphore(value: 0)
    nonisolated let renders = Atomic<Int>(0)

    func render(state: Counter) {
        renders.wrappingAdd(1, ordering: .relaxed)
        if state.value == awaited.load(ordering: .acquiring) { arrived.signal() }
    }
}

/// Something a background thread writes values into, which reach a `MainView` on the main actor.
protocol MainActorContender: Sendable {
    static var name: String { get }
    @MainActor init(view: MainView)
    func write(_ value: Int)
}

/// Sobreiro: a `ViewModel<Counter>` with the view subscribed by `subscribe(view:)` from the main actor. A write off
/// the main queue reaches the view through `MainActorHop`, which coalesces the writes that land before its
/// render runs on the main actor.
final class SobreiroContender: MainActorContender {
    static let name = "Sobreiro"
    let model = ViewModel(initialState: Counter(value: 0))
    let subscription: StateSubscription

    @MainActor init(view: MainView) {
        subscription = model.subscribe(view: view)
    }

    func write(_ value: Int) {
        model.write { $0.value = value }
    }
}

/// The floor: the value under a `Mutex` with a duplicate check, then one `DispatchQueue.main.async` per change that
/// renders it. It holds its view strongly, and renders every change in order because one thread writes.
final class MainQueueFloor: MainActorContender {
    static let name = "Main queue floor"
    let value = Mutex(0)
    let view: MainView

    @MainActor init(view: MainView) {
        self.view = view
    }

    func write(_ newValue: Int) {
        let changed = value.withLock { value in
            guard value != newValue else { return false }
            value = newValue
            return true
        }
        guard changed else { return }
        DispatchQueue.main.async { [view] in view.render(state: Counter(value: newValue)) }
    }
}

/// Writes in a burst of the second scenario.
let burst = 1_000
/// The renders the view received during one burst, recorded once per burst.
let rendersPerBurst = BenchmarkMetric.custom("renders per burst", useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    register(SobreiroContender.self)
    register(MainQueueFloor.self)
}

/// Registers both scenarios for `C`.
func register<C: MainActorContender>(_: C.Type) {
    // 1 000 sequential hops per sample; the result is per hop.
    let latency = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        units: [.mallocCountTotal: .count],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 200
    )
    Benchmark("M1 background write, main-actor render | \(C.name)", configuration: latency) { benchmark in
        let (view, contender) = make(C.self)
        let rendersBefore = view.renders.load(ordering: .relaxed)
        let operations = benchmark.scaledIterations.count
        benchmark.startMeasurement()
        for value in 1...operations {
            view.awaited.store(value, ordering: .releasing)
            contender.write(value)
            view.arrived.wait()
        }
        benchmark.stopMeasurement()
        precondition(view.renders.load(ordering: .relaxed) - rendersBefore == operations)
        blackHole(contender)
    }

    // One burst per sample; the result is per burst.
    let bursts = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, rendersPerBurst],
        units: [.mallocCountTotal: .count, rendersPerBurst: .count],
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: 2_000
    )
    Benchmark("M2 burst of \(burst) background writes | \(C.name)", configuration: bursts) { benchmark in
        let (view, contender) = make(C.self)
        let rendersBefore = view.renders.load(ordering: .relaxed)
        let operations = benchmark.scaledIterations.count
        var value = 0
        benchmark.startMeasurement()
        for _ in 0..<operations {
            view.awaited.store(value + burst, ordering: .releasing)
            for _ in 0..<burst {
                value += 1
                contender.write(value)
            }
            view.arrived.wait()
        }
        benchmark.stopMeasurement()
        benchmark.measurement(rendersPerBurst, (view.renders.load(ordering: .relaxed) - rendersBefore) / operations)
        blackHole(contender)
    }
}

/// Makes a view and a contender rendering into it, on the main actor, from the benchmark's background thread.
func make<C: MainActorContender>(_: C.Type) -> (MainView, C) {
    dispatchPrecondition(condition: .notOnQueue(.main))
    return DispatchQueue.main.sync {
        MainActor.assumeIsolated {
            let view = MainView()
            return (view, C(view: view))
        }
    }
}
