import Dispatch
import Foundation
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// A semaphore pair that lets a test stop a render in the middle and let it go later.
final class RenderGate: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// Called inside the render: tells the test, then waits for it.
    func pause() {
        entered.signal()
        _ = released.wait(timeout: .now() + patience)
    }

    /// Waits, suspending, until a render has paused; fails instead of hanging.
    func waitUntilPaused(sourceLocation: SourceLocation = #_sourceLocation) async {
        #expect(await signalled(entered), "the render never paused", sourceLocation: sourceLocation)
    }

    func release() { released.signal() }
}

/// V1 under concurrency: `subscribe(view:)` renders before it returns even while another thread delivers, and
/// a subscribing thread never takes over delivery from the writer.
@Suite("Subscribing while another thread delivers")
struct ConcurrentSubscribeTests {
    @Test("V1: a view subscribed while another thread renders a slow view is rendered before subscribe returns")
    func subscribeDuringSlowRender() async {
        let model = CounterModel()
        let gate = RenderGate()
        let slow = ProbeView<Counter> { if $0.count == 1 { gate.pause() } }
        model.subscribe(view: slow)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()

        let newcomer = ProbeView<Counter>()
        model.subscribe(view: newcomer)
        #expect(newcomer.history.map(\.count) == [1])

        gate.release()
        await expectSignalled(writer)
        model.write { $0.count = 2 }
        #expect(slow.history.map(\.count) == [0, 1, 2])
        #expect(newcomer.history.map(\.count) == [1, 2])
        #expect(slow.overlappingRenders == 0 && newcomer.overlappingRenders == 0)
    }

    @Test("D3: a state committed during a first render reaches the newcomer after it, never concurrently")
    func commitDuringFirstRender() async {
        let model = CounterModel()
        let gate = RenderGate()
        let newcomer = ProbeView<Counter> { if $0.count == 0 { gate.pause() } }
        let subscriber = onAnotherThread { model.subscribe(view: newcomer) }
        await gate.waitUntilPaused()

        // The newcomer is busy with its first state: the writer skips it rather than call it concurrently.
        model.write { $0.count = 1 }
        #expect(newcomer.history.map(\.count) == [0])

        gate.release()
        await expectSignalled(subscriber)
        #expect(newcomer.history.map(\.count) == [0, 1])
        #expect(newcomer.overlappingRenders == 0)
    }

    @Test("D2: a writer keeps delivering every state while another thread subscribes a slow view")
    func writerKeepsDelivering() async {
        let model = CounterModel()
        let recorder = ProbeView<Counter>()
        model.subscribe(view: recorder)
        let gate = RenderGate()
        let slow = ProbeView<Counter> { if $0.count == 0 { gate.pause() } }
        let subscriber = onAnotherThread { model.subscribe(view: slow) }
        await gate.waitUntilPaused()

        let writer = onAnotherThread { for count in 1...20 { model.write { $0.count = count } } }
        await expectSignalled(writer)
        #expect(recorder.history.map(\.count) == Array(0...20))

        gate.release()
        await expectSignalled(subscriber)
        #expect(slow.history.map(\.count) == [0, 20])
    }

    @Test("D5: a view subscribed from a render of the same model renders right after that render, on its thread")
    func reentrantSubscribe() {
        let model = CounterModel()
        let log = EventLog()
        let deliveringThread = Atomic<UInt>(0)
        let newcomerThread = Atomic<UInt>(0)
        let newcomer = ProbeView<Counter> { state in
            newcomerThread.store(currentThreadID(), ordering: .relaxed)
            log.record("newcomer renders \(state.count)")
        }
        let host = ProbeView<Counter> { state in
            guard state.count == 1 else { return }
            deliveringThread.store(currentThreadID(), ordering: .relaxed)
            model.subscribe(view: newcomer)
            log.record("subscribe returned")
            model.write { $0.count = 2 }
            log.record("host render returns")
        }
        model.subscribe(view: host)
        model.write { $0.count = 1 }
        // Not rendered inside the host's render, but before the write that delivers it returns, with the newest
        // state: the first render comes in the deliverer's next round.
        #expect(log.all == ["subscribe returned", "host render returns", "newcomer renders 2"])
        #expect(newcomerThread.load(ordering: .relaxed) == deliveringThread.load(ordering: .relaxed))
        #expect(host.history.map(\.count) == [0, 1, 2])
    }

    @Test("V1: a view subscribed inside a transaction gets the committed state when the transaction ends")
    func subscribeInsideTransaction() {
        let model = CounterModel()
        let view = ProbeView<Counter>()
        model.write {
            model.state.count = 1
            model.subscribe(view: view)
            #expect(view.history.isEmpty)
            model.state.count = 2
        }
        #expect(view.history.map(\.count) == [2])
    }
}
