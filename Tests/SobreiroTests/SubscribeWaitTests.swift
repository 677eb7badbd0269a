import Dispatch
import Foundation
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

@Suite("Subscribing a view that is already subscribed, while it renders")
struct SubscribeWaitTests {
    /// A render that hops synchronously onto a serial queue (the main-queue idiom `DispatchQueue.main.sync`) while
    /// a job on that queue subscribes the same view again.
    /// The same shape with a cancel instead of a subscribe: the wait that cancel already had.
    /// A thread in a transaction of one model subscribes a view into another model while that model's deliverer
    /// renders it, and the render writes the model whose transaction waits. (Two such threads crossing both ways
    /// are a lock-order inversion, which the library documents and reports, so only one way here.)
    @Test("V3: a transaction subscribing a kept view whose running render writes the transaction's model")
    func transactionSubscribesViewWhoseRenderWritesBack() async {
        let m1 = CounterModel()
        let m2 = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let v1 = ProbeView<Counter> { s in
            if s.count == 1, once.exchange(false, ordering: .relaxed) {
                gate.pause()
                m2.write { $0.label = "from v1" }
            }
        }
        m1.subscribe(view: v1)
        let w1 = onAnotherThread { m1.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let a = onAnotherThread { m2.write { m1.subscribe(view: v1) } }
        try? await Task.sleep(for: .milliseconds(200))  // A waits for v1's render while holding m2's lock
        gate.release()
        for done in [w1, a] { await expectSignalled(done) }
        #expect(v1.history.last == m1.state)
        #expect(v1.overlappingRenders == 0)
        #expect(m2.state.label == "from v1")
    }

    @Test("V3: a kept-entry wait while the running render subscribes the same view again, and unsubscribes it")
    func keptWaitWhileRenderResubscribes() async {
        let model = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let box = Locked<ProbeView<Counter>?>(nil)
        let view = ProbeView<Counter> { state in
            guard state.count == 1, once.exchange(false, ordering: .relaxed), let me = box.withLock({ $0 }) else {
                return
            }
            gate.pause()
            model.subscribe(view: me)
            model.unsubscribe(view: me)
            model.subscribe(view: me)
            model.write { $0.count = 2 }
        }
        box.withLock { $0 = view }
        model.subscribe(view: view)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let a = onAnotherThread { model.subscribe(view: view) }
        try? await Task.sleep(for: .milliseconds(200))
        gate.release()
        await expectSignalled(writer)
        await expectSignalled(a)
        #expect(view.overlappingRenders == 0)
        #expect(view.history.last?.count == 2)
        box.withLock { $0 = nil }
    }

    /// One thread delivers to a view and is held inside its render; a second unsubscribes the view, and waits for
    /// that render; a third subscribes the view again, plainly or inside a transaction. The new subscription is
    /// the same target as the entry that the deliverer still calls, so its first render waits for that call: the
    /// third thread must not return from subscribing while the render is held, and the view is never entered twice.
    @Test(
        "D3: a view subscribed again while another thread still renders its removed entry renders after that call",
        arguments: [false, true]
    )
    func resubscribedViewWaitsForRemovedEntrysCall(inTransaction: Bool) async {
        let model = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let view = ProbeView<Counter> { state in
            if state.count == 1, once.exchange(false, ordering: .relaxed) { gate.pause() }
        }
        model.subscribe(view: view)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let remover = onAnotherThread { model.unsubscribe(view: view) }
        await expectEventually { model.subscriberCount == 0 }
        let subscriber = onAnotherThread {
            if inTransaction {
                model.write {
                    model.subscribe(view: view)
                    $0.label = "again"
                }
            } else {
                model.subscribe(view: view)
            }
        }
        // Given a full second, a subscribe that did not wait would have rendered into the held view and returned.
        let returnedWhileHeld = await signalled(subscriber, within: 1)
        gate.release()
        for done in [writer, remover] { await expectSignalled(done) }
        if !returnedWhileHeld { await expectSignalled(subscriber) }
        #expect(!returnedWhileHeld, "the subscribe returned while the removed entry's render was held")
        #expect(view.overlappingRenders == 0)
        #expect(view.history.last == model.state)
    }

    @Test("D3, D4: writers, re-subscribers and transactions subscribing the same views race")
    func raceCatchUp() async {
        let model = CounterModel()
        let views = (0..<4).map { _ in ProbeView<Counter>() }
        for view in views { model.subscribe(view: view) }
        await expectCompletes {
            race(times: 8) { index in
                for step in 0..<300 {
                    switch index % 4 {
                    case 0: model.write { $0.count += 1 }
                    case 1: model.subscribe(view: views[step % 4])
                    case 2:
                        model.write {
                            model.subscribe(view: views[(step + 1) % 4]); model.state.count += 1
                        }
                    default:
                        model.unsubscribe(view: views[step % 4])
                        model.subscribe(view: views[step % 4])
                    }
                }
            }
        }
        for view in views { model.subscribe(view: view) }
        let final = model.state
        for view in views {
            #expect(view.history.last == final)
            // Equal neighbours are allowed: a re-subscribed view renders the current state again.
            let counts = view.history.map(\.count)
            let older = zip(counts.indices, counts.dropFirst()).first { counts[$0.0] > $0.1 }?.0
            #expect(view.overlappingRenders == 0)
            #expect(
                older == nil,
                "D3: an older state after a newer one: \(older.map { counts[max(0, $0 - 5)..<min(counts.count, $0 + 6)] } ?? [])"
            )
        }
    }

    @Test("D5: a transaction that subscribes and then unsubscribes many views")
    func manyViewsInOneTransaction() {
        let model = CounterModel()
        let count = 40_000
        let views = (0..<count).map { _ in ProbeView<Counter>() }
        let clock = ContinuousClock()
        let subscribeTime = clock.measure {
            model.write {
                for view in views { model.subscribe(view: view) }
                model.state.count = 1
            }
        }
        let unsubscribeTime = clock.measure {
            model.write {
                for view in views { model.unsubscribe(view: view) }
            }
        }
        print("subscribe \(count) in one transaction: \(subscribeTime); unsubscribe: \(unsubscribeTime)")
        #expect(views.allSatisfy { $0.history.map(\.count) == [1] })
        #expect(model.subscriberCount == 0)
        // Against the subscribes of the same run, which are linear, so that a busy machine slows both alike: a
        // release collection that is quadratic takes hundreds of times longer than they do at this count.
        #expect(unsubscribeTime < subscribeTime * 20 + .milliseconds(100), "quadratic release collection")
    }
}
