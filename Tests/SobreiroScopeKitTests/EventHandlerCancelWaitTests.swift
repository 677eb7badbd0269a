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

@Suite("R5: cancelling an event handler during its call")
struct EventHandlerCancelWaitTests {
    @Test("R5: cancel on another thread returns only after the plain handler's running call has returned")
    func cancelWaitsForRunningCall() async {
        let events = EventChannel<AppEvent>()
        let entered = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let log = Locked<[String]>([])
        let subscription = events.subscribe { event in
            entered.signal()
            _ = released.wait(timeout: .now() + patience)
            log.withLock { $0.append("handler returned from \(event)") }
        }
        let sender = onAnotherThread { events.send(.sessionExpired) }
        #expect(await signalled(entered), "the handler never started")

        let canceller = onAnotherThread {
            subscription.cancel()
            log.withLock { $0.append("cancel returned") }
        }
        // Released once the cancel waits for the call, or at once if it did not wait at all.
        await expectEventually { events.isCancelWaitingForHandler || log.withLock { $0.contains("cancel returned") } }
        released.signal()
        #expect(await signalled(canceller), "deadlock: cancel never returned")
        #expect(await signalled(sender), "deadlock: send never returned")
        #expect(log.withLock { $0 } == ["handler returned from sessionExpired", "cancel returned"])
    }

    @Test("R5: cancel on another thread returns only after the main-actor handler's running call has returned")
    @MainActor
    func cancelWaitsForRunningMainActorCall() async {
        let events = EventChannel<AppEvent>()
        let entered = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let log = Locked<[String]>([])
        let subscription = events.subscribe(onMainActor: { event in
            entered.signal()
            _ = released.wait(timeout: .now() + patience)
            log.withLock { $0.append("handler returned from \(event)") }
        })
        // Sent elsewhere, so that the event reaches the handler through a block on the main queue.
        #expect(runElsewhereHoldingMainQueue { events.send(.sessionExpired) })
        // The main actor is held inside the handler; a cancel from another thread either waits for it or returns.
        let conductor = cancelWhileHeld(
            entered: entered, release: released, isWaiting: { events.isCancelWaitingForHandler },
            cancel: { subscription.cancel() }, cancelReturned: { log.withLock { $0.append("cancel returned") } })
        await drainMainQueue()
        await Task.detached { _ = conductor.done.wait(timeout: .now() + patience) }.value
        #expect(log.withLock { $0 } == ["handler returned from sessionExpired", "cancel returned"])
    }

    @Test("R5: a plain handler that cancels its own subscription from inside a call finishes it, without deadlock")
    func handlerCancelsItself() async {
        let events = EventChannel<AppEvent>()
        let subscription = Locked<AnyCancellable?>(nil)
        let calls = Locked(0)
        let made = events.subscribe { _ in
            calls.withLock { $0 += 1 }
            subscription.withLock { $0 }?.cancel()
        }
        subscription.withLock { $0 = made }
        let sender = onAnotherThread { events.send(.sessionExpired) }
        #expect(await signalled(sender), "deadlock: the handler's own cancel never returned")
        events.send(.refreshed(1))

        #expect(calls.withLock { $0 } == 1)
    }

    @Test("R5: an event queued while a cancelled plain handler was running never reaches it")
    func queuedEventAfterCancel() async {
        let events = EventChannel<AppEvent>()
        let entered = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let received = Locked<[AppEvent]>([])
        let subscription = events.subscribe { event in
            received.withLock { $0.append(event) }
            guard event == .sessionExpired else { return }
            entered.signal()
            _ = released.wait(timeout: .now() + patience)
        }
        let sender = onAnotherThread { events.send(.sessionExpired) }
        #expect(await signalled(entered), "the handler never started")
        // Queued behind the running call: the sending thread delivers it after the handler returns.
        events.send(.refreshed(1))

        let canceller = onAnotherThread { subscription.cancel() }
        await expectEventually { events.isCancelWaitingForHandler }
        released.signal()
        #expect(await signalled(canceller), "deadlock: cancel never returned")
        #expect(await signalled(sender), "deadlock: send never returned")
        events.send(.refreshed(2))

        #expect(received.withLock { $0 } == [.sessionExpired])
    }
}
