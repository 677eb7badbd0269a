import Dispatch
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Counter: ViewState {
    var count = 0
    var label = ""
}

final class CounterModel: ViewModel<Counter>, @unchecked Sendable {
    init(count: Int = 0) {
        super.init(initialState: Counter(count: count))
    }

    func increment() {
        write { state.count += 1 }
    }

    func rename(_ label: String) {
        update {
            var next = state
            next.label = label
            return next
        }
    }
}

/// Runs `body` on many threads at once, each a thread of its own, and returns when every one has returned.
///
/// Not `DispatchQueue.concurrentPerform`: its workers are threads of the pool, which other tests may hold. Call it
/// from a thread of its own too (`expectCompletes`), since it blocks its caller.
func race(times: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let threads = (0..<times).map { index in onAnotherThread { body(index) } }
    for done in threads { done.wait() }
}

/// Runs `body` on a thread of its own and fails the test, instead of hanging it, if `body` has not returned
/// within ``patience``; the caller suspends meanwhile.
func expectCompletes(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> Void
) async {
    let done = await signalled(onAnotherThread(body))
    #expect(done, "deadlock: the work did not finish in \(Int(patience)) s", sourceLocation: sourceLocation)
}

/// A view that records what it renders, runs a hook inside each render, and notices if it is ever called
/// concurrently with itself.
final class ProbeView<State: ViewState>: StatefulView, @unchecked Sendable {
    private let recorded = Locked<[State]>([])
    private let inFlight = Atomic<Int>(0)
    private let overlaps = Atomic<Int>(0)
    let onRender: @Sendable (State) -> Void

    init(onRender: @escaping @Sendable (State) -> Void = { _ in }) {
        self.onRender = onRender
    }

    var history: [State] { recorded.withLock { $0 } }
    var overlappingRenders: Int { overlaps.load(ordering: .relaxed) }

    func render(state: State) {
        if inFlight.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
            overlaps.add(1, ordering: .relaxed)
        }
        recorded.withLock { $0.append(state) }
        onRender(state)
        inFlight.subtract(1, ordering: .acquiringAndReleasing)
    }
}

/// Counts renders made into views that may be gone by the time the test looks.
final class RenderLog: Sendable {
    private let counter = Atomic<Int>(0)
    var count: Int { counter.load(ordering: .relaxed) }
    func record() { counter.add(1, ordering: .relaxed) }
}

final class LoggingView: StatefulView {
    let log: RenderLog
    init(log: RenderLog) { self.log = log }
    func render(state: Counter) { log.record() }
}

/// `true` when every element is greater than the one before it.
func isStrictlyIncreasing(_ values: [Int]) -> Bool {
    zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
}

/// Identifies the calling thread.
func currentThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
    #else
        UInt(pthread_self())
    #endif
}

struct Listing: ViewState {
    var items: [Int] = []
    var limit = 0
    var extra: [Int] = []
    var pin: Int?
}

final class ListModel: ViewModel<Listing>, @unchecked Sendable {
    init() {
        super.init(initialState: Listing())
    }
}
