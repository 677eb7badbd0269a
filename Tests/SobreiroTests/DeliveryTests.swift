import Dispatch
import Sobreiro
import SobreiroPrimitives
import SobreiroTesting
import Synchronization
import TestSupport
import Testing

@Suite("Delivery")
struct DeliveryTests {
    @Test("D1: subscribers run without the model's lock: another thread can use the model meanwhile")
    func subscribersRunOutsideTheLock() async {
        let model = CounterModel()
        let otherThreadGotThrough = Atomic<Int>(0)
        let view = ProbeView<Counter> { state in
            guard state.count == 1, state.label.isEmpty else { return }
            // Held under the lock, the other thread would wait here until the safety net runs out.
            let done = onAnotherThread {
                _ = model.state
                model.write { $0.label = "from another thread" }
            }
            if done.wait(timeout: .now() + patience) == .success {
                otherThreadGotThrough.add(1, ordering: .relaxed)
            }
        }
        model.subscribe(view: view)
        // The render that waits runs on a thread of its own, never one of the pool.
        await expectCompletes { model.increment() }
        #expect(otherThreadGotThrough.load(ordering: .relaxed) == 1)
        #expect(view.history.last == Counter(count: 1, label: "from another thread"))
    }

    @Test("D2: write returns after every subscriber has rendered, on the writer's thread")
    func deliveryIsSynchronous() {
        let model = CounterModel()
        let writerThread = Locked<[Bool]>([])
        let caller = currentThreadID()
        let views = (0..<3).map { _ in
            ProbeView<Counter> { _ in writerThread.withLock { $0.append(currentThreadID() == caller) } }
        }
        for view in views { model.subscribe(view: view) }
        model.increment()
        for view in views { #expect(view.history == [Counter(), Counter(count: 1)]) }
        #expect(writerThread.withLock { $0 } == Array(repeating: true, count: 6))
    }

    @Test("D3, D4: under concurrent writers each view sees increasing states, one call at a time, ending on the last")
    func concurrentWritersDeliverInOrder() async {
        let model = CounterModel()
        let views = (0..<4).map { _ in ProbeView<Counter>() }
        for view in views { model.subscribe(view: view) }
        await expectCompletes {
            race(times: 8) { _ in
                for _ in 0..<3_000 { model.increment() }
            }
        }
        #expect(model.state.count == 24_000)
        for view in views {
            #expect(isStrictlyIncreasing(view.history.map(\.count)))
            #expect(view.overlappingRenders == 0)
            #expect(view.history.last == model.state)
        }
    }

    @Test("D5: a render that writes to its own model is delivered after the current state, in order")
    func reentrantWriteFromRender() {
        let model = CounterModel()
        let first = ProbeView<Counter> { state in
            if state.count < 5 { model.increment() }
        }
        let second = ProbeView<Counter>()
        model.subscribe(view: second)
        model.subscribe(view: first)
        #expect(first.history.map(\.count) == [0, 1, 2, 3, 4, 5])
        #expect(second.history.map(\.count) == [0, 1, 2, 3, 4, 5])
        #expect(model.state.count == 5)
    }

    @Test("D5: 100 000 re-entrant writes run in a loop, not a recursion")
    func deepReentrancyDoesNotGrowTheStack() {
        let model = CounterModel()
        let view = ProbeView<Counter> { state in
            if state.count < 100_000 { model.increment() }
        }
        model.subscribe(view: view)
        #expect(view.history.count == 100_001)
        #expect(model.state.count == 100_000)
    }

    @Test("D5: subscribe and unsubscribe from inside a render are safe and take effect in order")
    func reentrantSubscriptionChanges() {
        let model = CounterModel()
        let late = ProbeView<Counter>()
        let leaving = ProbeView<Counter>()
        let host = ProbeView<Counter> { state in
            if state.count == 1 {
                model.subscribe(view: late)
                model.unsubscribe(view: leaving)
                model.increment()
            }
        }
        model.subscribe(view: host)
        model.subscribe(view: leaving)
        model.increment()
        // The first render of `late` comes in the deliverer's next round, which carries the newest state.
        #expect(late.history.map(\.count) == [2])
        #expect(!leaving.history.map(\.count).contains(2))
        #expect(host.history.map(\.count) == [0, 1, 2])
        #expect(model.subscriberCount == 2)
    }

    @Test("D5: states written while a view is busy are coalesced; memory does not grow with the writes")
    func writesDuringDeliveryAreCoalesced() async {
        let model = CounterModel()
        let view = ProbeView<Counter> { state in
            guard state.count == 1 else { return }
            // While this render runs, another thread commits 10 000 states. None of them queues up.
            _ = onAnotherThread { for _ in 0..<10_000 { model.increment() } }.wait(timeout: .now() + patience)
        }
        model.subscribe(view: view)
        await expectCompletes { model.increment() }
        #expect(view.history.map(\.count) == [0, 1, 10_001])
    }

    @Test("D6: renders that write to each other's models in a cycle, on several threads, never deadlock")
    func crossModelCyclesDoNotDeadlock() async {
        let first = CounterModel()
        let second = CounterModel()
        let forward = ProbeView<Counter> { state in second.write { $0.label = "seen \(state.count)" } }
        let backward = ProbeView<Counter> { state in first.write { $0.label = "seen \(state.count)" } }
        first.subscribe(view: forward)
        second.subscribe(view: backward)
        await expectCompletes {
            race(times: 6) { index in
                for _ in 0..<1_000 {
                    if index.isMultiple(of: 2) { first.increment() } else { second.increment() }
                }
            }
        }
        #expect(first.state.count == 3_000)
        #expect(second.state.count == 3_000)
        #expect(forward.history.last == first.state)
        #expect(backward.history.last == second.state)
        #expect(forward.overlappingRenders == 0)
        #expect(backward.overlappingRenders == 0)
    }

    @Test("a view subscribed while another thread delivers gets its first state from that thread, in order")
    func subscribeDuringForeignDelivery() async {
        let model = CounterModel()
        let views = Locked<[ProbeView<Counter>]>([])
        await expectCompletes {
            race(times: 4) { index in
                for step in 0..<500 {
                    if index == 0 && step.isMultiple(of: 5) {
                        let view = ProbeView<Counter>()
                        views.withLock { $0.append(view) }
                        model.subscribe(view: view)
                    } else {
                        model.increment()
                    }
                }
            }
        }
        for view in views.withLock({ $0 }) {
            #expect(!view.history.isEmpty)
            #expect(isStrictlyIncreasing(view.history.map(\.count)))
            #expect(view.overlappingRenders == 0)
            #expect(view.history.last == model.state)
        }
    }
}
