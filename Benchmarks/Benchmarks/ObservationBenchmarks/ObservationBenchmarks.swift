import Benchmark
import Dispatch
import Observation
import Sobreiro
import SobreiroObservation
import Synchronization

// What a SwiftUI or UIKit screen pays to follow a model through Observation. Names read "scenario | contender",
// which `Scripts/observation.py` relies on.
//
// - O1: the benchmark's thread, a background thread, writes a field that an observer reads, then waits until the
//   observer's `onChange` fires. The onChange re-arms the tracking and signals a semaphore: the same wake-up for
//   every contender.
// - O2: the background thread writes a field that the observer does not read, then waits until the main queue has
//   run what the write queued; the invalidations the observer received are counted.
//
// package-benchmark calls a synchronous benchmark closure on a thread of Swift's global executor while the main
// queue, which runs the main actor's jobs, stays free (see MainActorBenchmarks).

/// The state every contender holds: a screen with a title and a list.
struct Screen: ViewState {
    var title = ""
    var items: [Int] = []
}

/// Something a background thread writes fields of a `Screen` into, and an observer reads them from.
protocol ObservationContender: Sendable {
    static var name: String { get }
    @MainActor init()
    func writeTitle(_ title: String)
    func writeItems(_ items: [Int])
    /// Reads the title as the observer does: on the thread that `onChange` fires on.
    func readTitle() -> String
}

/// Sobreiro: a model observed through `observed()`, whose object the main actor updates.
final class SobreiroObserved: ObservationContender, @unchecked Sendable {
    static let name = "Sobreiro observed()"
    let model = ViewModel(initialState: Screen())
    let observed: ObservedState<Screen>

    @MainActor init() {
        observed = model.observed()
    }

    func writeTitle(_ title: String) { model.write { $0.title = title } }
    func writeItems(_ items: [Int]) { model.write { $0.items = items } }
    func readTitle() -> String { MainActor.assumeIsolated { observed.title } }
}

/// A whole-state bridge: a hand-made `Observable` object that renders the model's state on the main actor and
/// announces every new state as one property, as a `MainActorStatefulView` holding `var state` would.
final class WholeStateBridge: ObservationContender, @unchecked Sendable {
    @MainActor
    final class Bridge: MainActorStatefulView, Observable {
        private let registrar = ObservationRegistrar()
        private var stored = Screen()

        var state: Screen {
            registrar.access(self, keyPath: \.state)
            return stored
        }

        func render(state: Screen) {
            registrar.withMutation(of: self, keyPath: \.state) { stored = state }
        }
    }

    static let name = "whole-state bridge"
    let model = ViewModel(initialState: Screen())
    let bridge: Bridge

    @MainActor init() {
        bridge = Bridge()
        model.subscribe(view: bridge)
    }

    func writeTitle(_ title: String) { model.write { $0.title = title } }
    func writeItems(_ items: [Int]) { model.write { $0.items = items } }
    func readTitle() -> String { MainActor.assumeIsolated { bridge.state.title } }
}

/// The floor: a hand-made `Observable` class whose fields sit under a `Mutex`, written from the background thread
/// itself, so that `onChange` fires on the writing thread with no hop. (Observation alone is not thread-safe; the
/// mutex makes this floor so, and SwiftUI would still need the change on the main actor.)
final class MutexFloor: ObservationContender, Observable, @unchecked Sendable {
    static let name = "Observable under a mutex (floor)"
    private let registrar = ObservationRegistrar()
    private let screen = Mutex(Screen())

    @MainActor init() {}

    var title: String {
        registrar.access(self, keyPath: \.title)
        return screen.withLock { $0.title }
    }

    var items: [Int] {
        registrar.access(self, keyPath: \.items)
        return screen.withLock { $0.items }
    }

    func writeTitle(_ title: String) {
        registrar.withMutation(of: self, keyPath: \.title) { screen.withLock { $0.title = title } }
    }

    func writeItems(_ items: [Int]) {
        registrar.withMutation(of: self, keyPath: \.items) { screen.withLock { $0.items = items } }
    }

    func readTitle() -> String { title }
}

/// The floor of a main-actor object: a hand-made `Observable` class on the main actor, which each write from the
/// background thread reaches through one `DispatchQueue.main.async`, in order, with no coalescing.
final class MainQueueFloor: ObservationContender, @unchecked Sendable {
    @MainActor
    final class Fields: Observable {
        private let registrar = ObservationRegistrar()
        private var storedTitle = ""
        private var storedItems: [Int] = []

        var title: String {
            get {
                registrar.access(self, keyPath: \.title)
                return storedTitle
            }
            set { registrar.withMutation(of: self, keyPath: \.title) { storedTitle = newValue } }
        }

        var items: [Int] {
            get {
                registrar.access(self, keyPath: \.items)
                return storedItems
            }
            set { registrar.withMutation(of: self, keyPath: \.items) { storedItems = newValue } }
        }
    }

    static let name = "Observable on the main actor, main.async (hop floor)"
    let fields: Fields

    @MainActor init() {
        fields = Fields()
    }

    func writeTitle(_ title: String) { DispatchQueue.main.async { [fields] in fields.title = title } }
    func writeItems(_ items: [Int]) { DispatchQueue.main.async { [fields] in fields.items = items } }
    func readTitle() -> String { MainActor.assumeIsolated { fields.title } }
}

/// Tracks `read` with `withObservationTracking`, re-arming from each `onChange`, and counts the changes.
final class Observer: @unchecked Sendable {
    let changed = DispatchSemaphore(value: 0)
    let changes = Atomic<Int>(0)
    private let read: @Sendable () -> String

    init(read: @escaping @Sendable () -> String) {
        self.read = read
    }

    /// Starts tracking; called on the thread that the contender's `onChange` fires on, and from `onChange` itself.
    func arm() {
        withObservationTracking {
            _ = read()
        } onChange: { [self] in
            changes.wrappingAdd(1, ordering: .relaxed)
            arm()
            changed.signal()
        }
    }
}

/// The invalidations that the writes of one sample of the second scenario caused, per 1 000 writes.
let invalidations = BenchmarkMetric.custom("invalidations per 1 000 writes", useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    register(SobreiroObserved.self, armOnMainActor: true)
    register(WholeStateBridge.self, armOnMainActor: true)
    register(MutexFloor.self, armOnMainActor: false)
    register(MainQueueFloor.self, armOnMainActor: true)
}

/// Registers both scenarios for `C`; `armOnMainActor` says where its `onChange` fires, and so where to arm.
func register<C: ObservationContender>(_: C.Type, armOnMainActor: Bool) {
    let latency = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        units: [.mallocCountTotal: .count],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 200
    )
    Benchmark("O1 background write of a read field, until onChange | \(C.name)", configuration: latency) {
        benchmark in
        let (contender, observer) = make(C.self, armOnMainActor: armOnMainActor)
        let operations = benchmark.scaledIterations.count
        benchmark.startMeasurement()
        for value in 1...operations {
            contender.writeTitle("title \(value)")
            observer.changed.wait()
        }
        benchmark.stopMeasurement()
        precondition(observer.changes.load(ordering: .relaxed) == operations)
        blackHole(contender)
    }

    let unread = Benchmark.Configuration(
        metrics: [.wallClock, invalidations],
        units: [invalidations: .count],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 200
    )
    Benchmark("O2 background write of an unread field | \(C.name)", configuration: unread) { benchmark in
        let (contender, observer) = make(C.self, armOnMainActor: armOnMainActor)
        let operations = benchmark.scaledIterations.count
        benchmark.startMeasurement()
        for write in 1...operations {
            contender.writeItems([write])
            // The hop that the write scheduled, if any, has run once this block has.
            DispatchQueue.main.sync {}
        }
        benchmark.stopMeasurement()
        benchmark.measurement(invalidations, observer.changes.load(ordering: .relaxed) * 1_000 / operations)
        blackHole(contender)
    }
}

/// Makes a contender on the main actor, from the benchmark's background thread, and an observer of its title armed
/// on the thread its `onChange` will fire on.
func make<C: ObservationContender>(_: C.Type, armOnMainActor: Bool) -> (C, Observer) {
    dispatchPrecondition(condition: .notOnQueue(.main))
    let contender = DispatchQueue.main.sync { MainActor.assumeIsolated { C() } }
    let observer = Observer(read: { contender.readTitle() })
    if armOnMainActor {
        DispatchQueue.main.sync { observer.arm() }
    } else {
        observer.arm()
    }
    return (contender, observer)
}
