import Dispatch
import Foundation
import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import TestSupport
import Testing

private enum AppEvent: Sendable, Equatable {
    case sessionExpired
    case refreshed(Int)
}

@Suite("B5: shared events")
@MainActor
struct EventChannelTests {
    @Test("B5: every handler gets every event, in the order sent; a cancelled handler gets nothing more")
    func deliversInOrder() {
        let events = EventChannel<AppEvent>()
        let first = Locked<[AppEvent]>([])
        let second = Locked<[AppEvent]>([])
        let firstSubscription = events.subscribe { event in first.withLock { $0.append(event) } }
        let secondSubscription = events.subscribe { event in second.withLock { $0.append(event) } }

        events.send(.refreshed(1))
        events.send(.sessionExpired)
        firstSubscription.cancel()
        events.send(.refreshed(2))

        #expect(first.withLock { $0 } == [.refreshed(1), .sessionExpired])
        #expect(second.withLock { $0 } == [.refreshed(1), .sessionExpired, .refreshed(2)])
        _ = secondSubscription
    }

    @Test("B5: an event sent from inside a handler is delivered after the current one, to everyone")
    func reentrantSend() {
        let events = EventChannel<AppEvent>()
        let log = Locked<[String]>([])
        let a = events.subscribe { event in
            log.withLock { $0.append("a \(event)") }
            if event == .sessionExpired { events.send(.refreshed(0)) }
        }
        let b = events.subscribe { event in log.withLock { $0.append("b \(event)") } }

        events.send(.sessionExpired)

        #expect(
            log.withLock { $0 } == [
                "a sessionExpired", "b sessionExpired", "a refreshed(0)", "b refreshed(0)",
            ])
        _ = (a, b)
    }

    @Test("B5: one feature raises an event and a router's model reacts, only while its activation lasts")
    func scopedReaction() {
        let events = EventChannel<AppEvent>()
        let model = FeedModel { model, activation in
            events.subscribe { event in
                if event == .sessionExpired { model.write { $0.failure = "signed out" } }
            }.store(in: activation)
        }
        let root = RootScope()
        let behavior = Behavior()
        behavior.bind(model)
        root.host(behavior)

        events.send(.sessionExpired)
        #expect(model.state.failure == "signed out")

        model.write { $0.failure = nil }
        behavior.detach()
        events.send(.sessionExpired)
        #expect(model.state.failure == nil, "an inactive model does not react")
    }

    @Test("B5: a main-actor handler runs on the main actor, in order, for events sent from other threads")
    func mainActorHandler() async {
        let events = EventChannel<AppEvent>()
        var received: [AppEvent] = []
        let done = Gate<Bool>()
        let subscription = events.subscribe(onMainActor: { event in
            received.append(event)
            if event == .sessionExpired { done.open(true) }
        })

        await Task.detached {
            for index in 1...100 { events.send(.refreshed(index)) }
            events.send(.sessionExpired)
        }.value

        #expect(await withDeadline { await done.wait() } == true)
        #expect(received == (1...100).map(AppEvent.refreshed) + [.sessionExpired])
        subscription.cancel()
    }

    // The next three send on another thread while the main queue is held, so the hand-over to the main actor is
    // queued behind the test's own job; the test then acts on the main actor, and only then lets the main queue run.

    @Test("R5: a main-actor handler cancelled while an event waits for the main actor never gets it")
    func cancelledMainActorHandler() async {
        let events = EventChannel<AppEvent>()
        var received: [AppEvent] = []
        let subscription = events.subscribe(onMainActor: { received.append($0) })

        #expect(runElsewhereHoldingMainQueue { events.send(.sessionExpired) })
        subscription.cancel()
        await drainMainQueue()

        #expect(received == [])
    }

    @Test("R5: a model's main-actor handler whose activation ended while an event waited never writes the model")
    func mainActorHandlerAfterDeactivation() async {
        let events = EventChannel<AppEvent>()
        let model = FeedModel { model, activation in
            events.subscribe(onMainActor: { _ in model.write { $0.failure = "signed out" } }).store(in: activation)
        }
        let root = RootScope()
        let behavior = Behavior()
        behavior.bind(model)
        root.host(behavior)

        #expect(runElsewhereHoldingMainQueue { events.send(.sessionExpired) })
        behavior.detach()
        await drainMainQueue()

        #expect(model.state.failure == nil, "an inactive model does not react")
    }

    @Test("B5: an event sent from a main-actor handler reaches it after the current call returns, in order")
    func reentrantSendOnMainActor() async {
        let events = EventChannel<AppEvent>()
        var log: [String] = []
        let subscription = events.subscribe(onMainActor: { event in
            log.append("enter \(event)")
            if event == .sessionExpired { events.send(.refreshed(1)) }
            log.append("exit \(event)")
        })

        #expect(runElsewhereHoldingMainQueue { events.send(.sessionExpired) })
        await drainMainQueue()

        #expect(
            log == ["enter sessionExpired", "exit sessionExpired", "enter refreshed(1)", "exit refreshed(1)"])
        subscription.cancel()
    }

    @Test("B5: concurrent senders never overlap one handler, and every event arrives")
    func concurrentSenders() async {
        let events = EventChannel<AppEvent>()
        let inHandler = Locked(0)
        let overlaps = Locked(0)
        let count = Locked(0)
        let subscription = events.subscribe { _ in
            let concurrent = inHandler.withLock { running in
                running += 1
                return running
            }
            if concurrent > 1 { overlaps.withLock { $0 += 1 } }
            count.withLock { $0 += 1 }
            inHandler.withLock { $0 -= 1 }
        }

        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<4 {
                group.addTask { for index in 0..<500 { events.send(.refreshed(sender * 1000 + index)) } }
            }
        }

        #expect(count.withLock { $0 } == 2000)
        #expect(overlaps.withLock { $0 } == 0)
        subscription.cancel()
    }
}

/// R5 for plain handlers: once the result of `subscribe` is cancelled, the handler never runs again, even a call
/// that another thread had already started; and a handler may cancel itself.
