import Dispatch
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// Watches the comparisons of one projection's values: a comparison that starts while another is under way is
/// the projection's last value read by two calls at once, and `hook` runs user code inside the comparison.
final class ComparisonProbe: Sendable {
    private let inFlight = Atomic<Int>(0)
    private let overlapCount = Atomic<Int>(0)
    private let hook = Locked<(@Sendable (Int) -> Void)?>(nil)

    var overlaps: Int { overlapCount.load(ordering: .relaxed) }

    /// Runs `body` with the new value of each comparison, inside it.
    func onCompare(_ body: @escaping @Sendable (Int) -> Void) { hook.withLock { $0 = body } }

    /// Lets go of the hook, which holds the model whose projected values hold this probe: a test ends with it, so
    /// that the model, its subscriptions and the probe are freed.
    func removeHook() { hook.withLock { $0 = nil } }

    func compare(_ lhs: Int, _ rhs: Int) -> Bool {
        if inFlight.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
            overlapCount.add(1, ordering: .relaxed)
        }
        defer { inFlight.subtract(1, ordering: .acquiringAndReleasing) }
        hook.withLock { $0 }?(rhs)
        return lhs == rhs
    }
}

/// A projected value whose `==` goes through its probe.
struct Probed: ViewState {
    let count: Int
    let probe: ComparisonProbe
    static func == (lhs: Probed, rhs: Probed) -> Bool { lhs.probe.compare(lhs.count, rhs.count) }
}

/// A projection's last value is read and replaced only by the call that owns its subscription: never by two
/// threads at once, and never again from inside its own comparison.
@Suite("Projection: the last value")
struct ProjectionLastValueTests {
    private func counts(_ view: ProbeView<Probed>) -> [Int] { view.history.map(\.count) }

    @Test("a write and a subscribe made inside the comparison, on the deliverer, come after it")
    func reentryOnDeliverer() {
        let model = CounterModel()
        let probe = ComparisonProbe()
        defer { probe.removeHook() }
        let projection = model.map { Probed(count: $0.count, probe: probe) }
        let view = ProbeView<Probed>()
        let other = ProbeView<Probed>()
        projection.subscribe(view: view)
        let once = Atomic<Bool>(false)
        probe.onCompare { new in
            guard new == 1, !once.exchange(true, ordering: .relaxed) else { return }
            model.write { $0.count = 2 }
            projection.subscribe(view: view)
            projection.subscribe(view: other)
        }
        model.write { $0.count = 1 }
        #expect(counts(view) == [0, 1, 2])
        #expect(counts(other) == [2])
        #expect(probe.overlaps == 0 && view.overlappingRenders == 0)
    }

    @Test("a write made inside the comparison of a first render's catch-up comes after it")
    func reentryInFirstRender() async {
        let model = CounterModel()
        let probe = ComparisonProbe()
        defer { probe.removeHook() }
        let projection = model.map { Probed(count: $0.count, probe: probe) }
        let gate = RenderGate()
        let view = ProbeView<Probed> { if $0.count == 0 { gate.pause() } }
        let once = Atomic<Bool>(false)
        probe.onCompare { new in
            guard new == 1, !once.exchange(true, ordering: .relaxed) else { return }
            model.write { $0.count = 2 }
        }
        let subscriber = onAnotherThread { projection.subscribe(view: view) }
        await gate.waitUntilPaused()
        model.write { $0.count = 1 }  // skips the view, whose first render is under way
        gate.release()
        await expectSignalled(subscriber)
        #expect(counts(view) == [0, 1, 2])
        #expect(probe.overlaps == 0 && view.overlappingRenders == 0)
    }

    @Test("while the deliverer compares, a subscribe of the same view and a write on other threads wait for it")
    func otherThreadsWaitForComparison() async {
        let model = CounterModel()
        let probe = ComparisonProbe()
        defer { probe.removeHook() }
        let projection = model.map { Probed(count: $0.count, probe: probe) }
        let view = ProbeView<Probed>()
        projection.subscribe(view: view)
        let gate = RenderGate()
        let once = Atomic<Bool>(false)
        probe.onCompare { new in
            guard new == 1, !once.exchange(true, ordering: .relaxed) else { return }
            gate.pause()
        }
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let resubscriber = onAnotherThread { projection.subscribe(view: view) }
        let second = onAnotherThread { model.write { $0.count = 2 } }
        await expectSignalled(second)  // the paused deliverer takes its round
        // The resubscriber waits for the paused call rather than compare beside it.
        #expect(!(await signalled(resubscriber, within: 0.2)))
        #expect(counts(view) == [0])
        gate.release()
        await expectSignalled(writer)
        await expectSignalled(resubscriber)
        #expect(counts(view) == [0, 1, 2])
        #expect(probe.overlaps == 0 && view.overlappingRenders == 0)
    }

    @Test("a handler following a projection writes and follows again from inside the comparison")
    func reentryOfHandler() {
        let source = CounterModel()
        let follower = CounterModel()
        let probe = ComparisonProbe()
        defer { probe.removeHook() }
        let projection = source.map { Probed(count: $0.count, probe: probe) }
        let seen = Locked<[Int]>([])
        let tokens = Locked<[StateSubscription]>([])
        let once = Atomic<Bool>(false)
        probe.onCompare { new in
            guard new == 1, !once.exchange(true, ordering: .relaxed) else { return }
            source.write { $0.count = 2 }
            let token = follower.subscribe(to: projection) { _ in }
            tokens.withLock { $0.append(token) }
        }
        let token = follower.subscribe(to: projection) { value in seen.withLock { $0.append(value.count) } }
        source.write { $0.count = 1 }
        #expect(seen.withLock { $0 } == [0, 1, 2])
        #expect(probe.overlaps == 0)
        token.cancel()
        tokens.withLock { $0.forEach { $0.cancel() } }
    }
}
