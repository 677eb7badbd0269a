import Dispatch
import Foundation
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// V1 and V3 when the view's calls belong to another thread, or the subscribe waits for a transaction to end:
/// `subscribe(view:)` returns once the view has rendered the current state.
@Suite("Subscribing a view that another thread is rendering")
struct SubscribeCatchUpTests {
    @Test("V1, V3: subscribing a view whose first render runs on another thread returns after it rendered the state")
    func secondSubscribeOfViewInFirstRender() async {
        let model = CounterModel()
        let gate = RenderGate()
        let isFirst = Atomic<Bool>(true)
        let view = ProbeView<Counter> { _ in
            if isFirst.exchange(false, ordering: .relaxed) { gate.pause() }
        }
        let first = onAnotherThread { model.subscribe(view: view) }
        await gate.waitUntilPaused()
        model.write { $0.count = 1 }  // skipped: the first subscriber's thread owns the view's calls

        let seenAfterSecondSubscribe = Locked<[Int]>([])
        let second = onAnotherThread {
            model.subscribe(view: view)
            seenAfterSecondSubscribe.withLock { $0 = view.history.map(\.count) }
        }
        let returnedEarly = await signalled(second, within: 2)
        gate.release()
        await expectSignalled(first)
        if !returnedEarly { await expectSignalled(second) }
        #expect(seenAfterSecondSubscribe.withLock { $0 }.last == 1, "subscribe returned before the view rendered 1")
        #expect(view.overlappingRenders == 0)
        #expect(view.history.last?.count == 1)
    }

    @Test("V1: a view subscribed inside a transaction while another thread delivers is rendered when write returns")
    func subscribeInTransactionWhileAnotherThreadDelivers() async {
        let model = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let slow = ProbeView<Counter> { if $0.count == 1, once.exchange(false, ordering: .relaxed) { gate.pause() } }
        model.subscribe(view: slow)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()

        let newcomer = ProbeView<Counter>()
        let seenWhenWriteReturned = Locked<[Int]>([])
        let subscriber = onAnotherThread {
            model.write {
                model.subscribe(view: newcomer)
                model.state.label = "subscribed"
            }
            seenWhenWriteReturned.withLock { $0 = newcomer.history.map(\.count) }
        }
        let returnedEarly = await signalled(subscriber, within: 2)
        gate.release()
        await expectSignalled(writer)
        if !returnedEarly { await expectSignalled(subscriber) }
        #expect(seenWhenWriteReturned.withLock { $0 } == [1], "write returned before the newcomer's first render")
        #expect(newcomer.history.last?.label == "subscribed")
    }

    @Test("D5: a view that unsubscribes and subscribes itself from its render is not re-entered")
    func resubscribeFromOwnRender() {
        let model = CounterModel()
        let box = Locked<ProbeView<Counter>?>(nil)
        let once = Atomic<Bool>(true)
        let view = ProbeView<Counter> { state in
            guard state.count == 1, let view = box.withLock({ $0 }), once.exchange(false, ordering: .relaxed) else {
                return
            }
            model.unsubscribe(view: view)
            model.subscribe(view: view)
        }
        box.withLock { $0 = view }
        model.subscribe(view: view)
        model.write { $0.count = 1 }
        #expect(view.history.map(\.count) == [0, 1, 1], "the resubscribed view renders right after its render")
        model.write { $0.count = 2 }
        #expect(view.overlappingRenders == 0, "the render was entered again from inside itself")
        #expect(view.history.last?.count == 2)
        box.withLock { $0 = nil }
    }
}
