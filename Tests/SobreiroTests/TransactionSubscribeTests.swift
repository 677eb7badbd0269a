import Dispatch
import Foundation
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

private struct Boom: Error {}

@Suite("Subscribing inside transactions: leftovers, catch-up and call slots")
struct TransactionSubscribeLeftoverTests {
    @Test("V1: a view subscribed in a transaction that throws renders the committed state once and stays subscribed")
    func subscribeInThrowingTransaction() async {
        let model = CounterModel(count: 3)
        let view = ProbeView<Counter>()
        do {
            try model.write {
                model.subscribe(view: view)
                model.state.count = 99
                throw Boom()
            }
        } catch {}
        #expect(view.history.map(\.count) == [3])
        let writer = onAnotherThread { model.write { $0.count = 4 } }
        await expectSignalled(writer)
        #expect(view.history.map(\.count) == [3, 4], "slot left claimed: the deliverer skips the view")
    }

    @Test("V1: nested transaction that subscribes and throws, outer commits")
    func subscribeInNestedThrowingTransaction() async {
        let model = CounterModel()
        let view = ProbeView<Counter>()
        model.write {
            model.state.count = 1
            do {
                try model.write {
                    model.subscribe(view: view)
                    model.state.count = 50
                    throw Boom()
                }
            } catch {}
            model.state.count = 2
        }
        #expect(view.history.map(\.count) == [2])
        let writer = onAnotherThread { model.write { $0.count = 5 } }
        await expectSignalled(writer)
        #expect(view.history.last?.count == 5)
    }

    @Test("V1: the same view subscribed twice in one transaction, and re-subscribed after an unsubscribe in it")
    func subscribeTwiceInTransaction() async {
        let model = CounterModel()
        let view = ProbeView<Counter>()
        model.write {
            model.subscribe(view: view)
            model.subscribe(view: view)
            model.unsubscribe(view: view)
            model.subscribe(view: view)
            model.state.count = 1
        }
        #expect(view.history.map(\.count) == [1])
        #expect(model.subscriberCount == 1)
        let writer = onAnotherThread { model.write { $0.count = 2 } }
        await expectSignalled(writer)
        #expect(view.history.map(\.count) == [1, 2])
        #expect(view.overlappingRenders == 0)
    }

    @Test(
        "V1: subscribing in a transaction a view that another thread is rendering: rendered latest when write returns")
    func subscribeInTransactionViewRenderedElsewhere() async {
        let model = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let view = ProbeView<Counter> { if $0.count == 1, once.exchange(false, ordering: .relaxed) { gate.pause() } }
        model.subscribe(view: view)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let seen = Locked<[Int]>([])
        let subscriber = onAnotherThread {
            model.write {
                model.subscribe(view: view)
                model.state.count = 2
            }
            seen.withLock { $0 = view.history.map(\.count) }
        }
        let early = await signalled(subscriber, within: 1)
        gate.release()
        await expectSignalled(writer)
        if !early { await expectSignalled(subscriber) }
        #expect(!early, "write returned while the kept view was still rendering 1")
        #expect(seen.withLock { $0 }.last == 2)
        #expect(view.overlappingRenders == 0)
        #expect(view.history.last?.count == 2)
    }

    /// The transaction also cancels a subscriber whose render another thread runs, so that after unlocking it
    /// waits in the release of that entry while it holds the newcomer's slot.
    @Test("V1: a newcomer cancelled between commit and its leftover render is never rendered and its cancel returns")
    func cancelBetweenCommitAndLeftoverRender() async {
        let model = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let slow = ProbeView<Counter> { if $0.count == 1, once.exchange(false, ordering: .relaxed) { gate.pause() } }
        let slowToken = model.subscribe(view: slow)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let newcomer = ProbeView<Counter>()
        let token = Locked<StateSubscription?>(nil)
        let subscribed = DispatchSemaphore(value: 0)
        let transaction = onAnotherThread {
            model.write {
                token.withLock { $0 = model.subscribe(view: newcomer) }
                slowToken.cancel()  // waited for after unlocking: the render is paused
            }
            _ = subscribed
        }
        // Let the transaction reach its wait for the paused render.
        await expectEventually { slowToken.isWaitedForByCancel }
        let cancel = onAnotherThread { token.withLock { $0 }?.cancel() }
        let cancelEarly = await signalled(cancel, within: 0.3)
        gate.release()
        await expectSignalled(writer)
        await expectSignalled(transaction)
        if !cancelEarly { await expectSignalled(cancel) }
        #expect(newcomer.history.isEmpty, "a cancelled newcomer was rendered")
        #expect(model.subscriberCount == 0)
    }

    @Test("V1: a newcomer deallocated between commit and its leftover render frees its entry")
    func deallocatedBetweenCommitAndLeftoverRender() async {
        let model = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let slow = ProbeView<Counter> { if $0.count == 1, once.exchange(false, ordering: .relaxed) { gate.pause() } }
        let slowToken = model.subscribe(view: slow)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let log = RenderLog()
        let holder = Locked<LoggingView?>(LoggingView(log: log))
        let transaction = onAnotherThread {
            model.write {
                model.subscribe(view: holder.withLock { $0 }!)
                slowToken.cancel()
            }
        }
        await expectEventually { slowToken.isWaitedForByCancel }
        holder.withLock { $0 = nil }
        gate.release()
        await expectSignalled(writer)
        await expectSignalled(transaction)
        #expect(log.count == 0)
        #expect(model.subscriberCount == 0)
        let next = LoggingView(log: log)
        model.subscribe(view: next)
        model.write { $0.count = 7 }
        #expect(log.count == 2)
    }
    /// The transaction claims the newcomer X at commit, then waits for V's first render on another thread, and
    /// that render subscribes X: each waits for a slot the other holds.
    @Test("V1: leftovers holding a newcomer's slot wait for a render that subscribes that newcomer")
    func crossedSlotsBetweenLeftoversAndFirstRender() async {
        let model = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let x = ProbeView<Counter>()
        let v = ProbeView<Counter> { _ in
            guard once.exchange(false, ordering: .relaxed) else { return }
            gate.pause()
            model.subscribe(view: x)
        }
        let b = onAnotherThread { model.subscribe(view: v) }
        await gate.waitUntilPaused()
        let a = onAnotherThread {
            model.write {
                model.subscribe(view: v)  // kept: B renders it
                model.subscribe(view: x)  // new: claimed by this thread at commit
                model.state.count = 1
            }
        }
        try? await Task.sleep(for: .milliseconds(200))
        gate.release()
        await expectSignalled(a)
        await expectSignalled(b)
        #expect(v.history.last?.count == 1)
        #expect(x.history.last?.count == 1)
        #expect(v.overlappingRenders == 0 && x.overlappingRenders == 0)
    }
}
