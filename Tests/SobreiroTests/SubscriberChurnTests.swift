import Dispatch
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// Subscribing and unsubscribing in every slot of a list of many subscribers, and ending a subscription while
/// its first render or its catch-up runs.
@Suite("Subscriber churn")
struct SubscriberChurnTests {
    let model = CounterModel()

    /// Whether each of `views` is subscribed: subscribing it again keeps its token, and a write reaches it once.
    func expectSubscribed(
        _ views: [ProbeView<Counter>], tokens: [ObjectIdentifier: StateSubscription],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(model.subscriberCount == views.count, sourceLocation: sourceLocation)
        for view in views {
            #expect(model.subscribe(view: view) === tokens[ObjectIdentifier(view)], sourceLocation: sourceLocation)
        }
    }

    @Test(
        "D5: removing the last, the first, a middle and the only entry keeps every other entry findable",
        arguments: [[3, 0, 1, 0, 0], [0, 0, 0, 0, 0], [4, 3, 2, 1, 0], [2, 2, 1, 1, 0]])
    func removeInEverySlot(order: [Int]) {
        var views = (0..<5).map { _ in ProbeView<Counter>() }
        var tokens: [ObjectIdentifier: StateSubscription] = [:]
        for view in views { tokens[ObjectIdentifier(view)] = model.subscribe(view: view) }
        for (step, position) in order.enumerated() {
            let removed = views.remove(at: position)
            model.unsubscribe(view: removed)
            expectSubscribed(views, tokens: tokens)
            model.write { $0.count = step + 1 }
            #expect(removed.history.map(\.count) == Array(0...step))
            for view in views { #expect(view.history.last?.count == step + 1) }
        }
        #expect(model.subscriberCount == 0)
        // The emptied list takes subscribers again.
        let late = ProbeView<Counter>()
        model.subscribe(view: late)
        model.write { $0.count = 100 }
        #expect(late.history.map(\.count) == [order.count, 100])
    }

    @Test("R5: unsubscribing a view during its first render waits for it, and the render's thread stops there")
    func unsubscribeDuringFirstRender() async {
        let gate = RenderGate()
        let log = EventLog()
        let view = ProbeView<Counter> { state in
            guard state.count == 0 else { return }
            gate.pause()
            log.record("first render returned")
        }
        let subscriber = onAnotherThread { model.subscribe(view: view) }
        await gate.waitUntilPaused()
        // Committed while the subscribing thread owns the view's calls: the writer skips it, and the catch-up
        // after the first render would render it, were the subscription not ended by then.
        await expectSignalled(onAnotherThread { model.write { $0.count = 1 } })
        let canceller = onAnotherThread {
            model.unsubscribe(view: view)
            log.record("unsubscribe returned")
        }
        await expectEventually { model.subscriberCount == 0 }
        #expect(!(await signalled(canceller, within: 0.2)), "unsubscribe did not wait for the render")
        gate.release()
        await expectSignalled(canceller)
        await expectSignalled(subscriber)
        #expect(log.all == ["first render returned", "unsubscribe returned"])
        model.write { $0.count = 2 }
        #expect(view.history.map(\.count) == [0])
        #expect(view.overlappingRenders == 0)
    }

    @Test("V1: a view that only the subscribing call holds is caught up before subscribe returns, then let go")
    func temporaryViewCaughtUp() async {
        let gate = RenderGate()
        let renders = Locked<[Int]>([])
        let subscriber = onAnotherThread {
            model.subscribe(
                view: ProbeView<Counter> { state in
                    renders.withLock { $0.append(state.count) }
                    if state.count == 0 { gate.pause() }
                })
        }
        await gate.waitUntilPaused()
        await expectSignalled(onAnotherThread { model.write { $0.count = 1 } })
        gate.release()
        await expectSignalled(subscriber)
        #expect(renders.withLock { $0 } == [0, 1])
        #expect(model.subscriberCount == 0)
        await expectCompletes { model.write { $0.count = 2 } }
        #expect(renders.withLock { $0 } == [0, 1])
    }

    @Test("V1, R5: a view subscribed in a transaction and gone before it ends leaves no claimed call behind")
    func viewGoneBeforeTransactionEnds() async {
        let log = RenderLog()
        let token = Locked<StateSubscription?>(nil)
        model.write {
            let view = LoggingView(log: log)
            token.withLock { $0 = model.subscribe(view: view) }
            model.state.count = 1
        }
        #expect(log.count == 0)
        #expect(model.subscriberCount == 0)
        // A call that the transaction claimed and never gave back would keep a cancel waiting forever.
        let cancel = onAnotherThread { token.withLock { $0 }?.cancel() }
        await expectSignalled(cancel)
        await expectCompletes { model.write { $0.count = 2 } }
        #expect(log.count == 0)
    }

    @Test("R5: unsubscribing a kept view while its catch-up waits for another thread's render")
    func unsubscribeDuringKeptCatchUp() async {
        let gate = RenderGate()
        let view = ProbeView<Counter> { state in
            if state.count == 1 { gate.pause() }
        }
        let token = model.subscribe(view: view)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        // Subscribing the kept view again waits for the writer's render before catching up.
        let resubscriber = onAnotherThread { model.subscribe(view: view) }
        await expectEventually { token.isWaitedForByCancel }
        let canceller = onAnotherThread { model.unsubscribe(view: view) }
        await expectEventually { model.subscriberCount == 0 }
        gate.release()
        await expectSignalled(canceller)
        await expectSignalled(resubscriber)
        await expectSignalled(writer)
        model.write { $0.count = 2 }
        #expect(view.history.map(\.count) == [0, 1])
        #expect(view.overlappingRenders == 0)
    }

    @Test("R5: a render that cancels a view the finishing transaction of its thread's waiter has claimed")
    func cancelOfClaimedLeftoverFromWaitedRender() async {
        let gate = RenderGate()
        let tokenOfLate = Locked<StateSubscription?>(nil)
        let late = ProbeView<Counter>()
        let early = ProbeView<Counter> { state in
            guard state.count == 1 else { return }
            gate.pause()
            tokenOfLate.withLock { $0 }?.cancel()
        }
        let tokenOfEarly = model.subscribe(view: early)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        // The transaction ends `early`, whose render runs on the writer, and subscribes `late`, whose calls it
        // claims as it unlocks: it then waits for the writer's render, which cancels `late` and would wait back.
        let transaction = onAnotherThread {
            model.write {
                model.unsubscribe(view: early)
                tokenOfLate.withLock { $0 = model.subscribe(view: late) }
                model.state.count = 2
            }
        }
        await expectEventually { tokenOfEarly.isWaitedForByCancel }
        gate.release()
        await expectSignalled(transaction)
        await expectSignalled(writer)
        model.write { $0.count = 3 }
        #expect(early.history.map(\.count) == [0, 1])
        #expect(late.history.map(\.count).allSatisfy { $0 == 2 })
        #expect(model.subscriberCount == 0)
    }
}
