import Dispatch
import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Synchronization
import TestSupport
import Testing

/// Counts its own deallocation.
private final class EventCanary: Sendable {
    let owner: EventCanaryCount
    init(_ owner: EventCanaryCount) { self.owner = owner }
    deinit { owner.value.add(1, ordering: .relaxed) }
}

private final class EventCanaryCount: Sendable {
    let value = Atomic<Int>(0)
}

@Suite("Main-actor event hop: order, re-entrancy and lifetimes")
@MainActor
struct EventHopEdgeTests {
    @Test("Order across the drain: events queued elsewhere come before one sent on the main queue")
    func queuedEventsBeforeMainEvent() async {
        let events = EventChannel<Int>()
        var received: [Int] = []
        let subscription = events.subscribe(onMainActor: { received.append($0) })

        #expect(
            runElsewhereHoldingMainQueue {
                events.send(1); events.send(2)
            })
        events.send(3)  // main is the channel's deliverer: hands over 1 and 2 first
        #expect(received == [1, 2, 3])
        await drainMainQueue()
        #expect(received == [1, 2, 3])
        subscription.cancel()
    }

    @Test("Lost wake-up and order: inside the handler, one event sent elsewhere and one on main")
    func eventsDuringDrain() async {
        let events = EventChannel<Int>()
        var log: [String] = []
        let subscription = events.subscribe(onMainActor: { event in
            log.append("enter \(event)")
            if event == 1 {
                #expect(runElsewhereHoldingMainQueue { events.send(2) })
                events.send(3)
            }
            log.append("exit \(event)")
        })

        #expect(runElsewhereHoldingMainQueue { events.send(1) })
        await drainMainQueue()
        await drainMainQueue()

        #expect(log == ["enter 1", "exit 1", "enter 2", "exit 2", "enter 3", "exit 3"])
        subscription.cancel()
    }

    @Test("Re-entrancy: a handler that cancels itself gets none of the events still waiting")
    func handlerCancelsItself() async {
        let events = EventChannel<Int>()
        var received: [Int] = []
        var subscription: AnyCancellable?
        subscription = events.subscribe(onMainActor: { event in
            received.append(event)
            subscription?.cancel()
        })

        #expect(runElsewhereHoldingMainQueue { for event in 1...3 { events.send(event) } })
        await drainMainQueue()
        #expect(received == [1])
    }

    @Test("Re-entrancy: a handler that cancels another with events waiting: the other gets none")
    func handlerCancelsAnother() async {
        let events = EventChannel<Int>()
        var first: [Int] = []
        var second: [Int] = []
        var secondSubscription: AnyCancellable?
        let firstSubscription = events.subscribe(onMainActor: { event in
            first.append(event)
            secondSubscription?.cancel()
        })
        secondSubscription = events.subscribe(onMainActor: { second.append($0) })

        #expect(runElsewhereHoldingMainQueue { for event in 1...3 { events.send(event) } })
        await drainMainQueue()
        #expect(first == [1, 2, 3])
        #expect(second == [])
        firstSubscription.cancel()
    }

    @Test("Re-entrancy: a handler that subscribes a new handler: it gets only events delivered after it exists")
    func handlerSubscribesAnother() async {
        let events = EventChannel<Int>()
        var late: [Int] = []
        var lateSubscription: AnyCancellable?
        let subscription = events.subscribe(onMainActor: { event in
            if event == 1 {
                lateSubscription = events.subscribe(onMainActor: { late.append($0) })
                events.send(10)
            }
        })

        #expect(runElsewhereHoldingMainQueue { for event in 1...3 { events.send(event) } })
        await drainMainQueue()
        await drainMainQueue()
        // 2 and 3 were delivered, by the sending thread, before the new handler existed.
        #expect(late == [10])
        subscription.cancel()
        lateSubscription?.cancel()
    }

    @Test("Leak: a cancelled main-actor handler with events waiting is freed once the queue drains")
    func noLeakAfterCancel() async {
        let count = EventCanaryCount()
        let events = EventChannel<Int>()
        do {
            let canary = EventCanary(count)
            var subscription: AnyCancellable? = events.subscribe(onMainActor: { _ in _ = canary })
            #expect(runElsewhereHoldingMainQueue { events.send(1) })
            subscription?.cancel()
            subscription = nil
        }
        await drainMainQueue()
        #expect(count.value.load(ordering: .relaxed) == 1)
    }
}
