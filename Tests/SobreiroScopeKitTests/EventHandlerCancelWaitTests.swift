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
    func cancelWaitsForRunningCall() {
        let events = EventChannel<AppEvent>()
        let entered = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let log = Locked<[String]>([])
        let subscription = events.subscribe { event in
            entered.signal()
            released.wait()
            log.withLock { $0.append("handler returned from \(event)") }
        }
        let sender = onAnotherThread { events.send(.sessionExpired) }
        #expect(entered.wait(timeout: .now() + 20) == .success, "the handler never started")

        let canceller = onAnotherThread {
            subscription.cancel()
            log.withLock { $0.append("cancel returned") }
        }
        // Released once the cancel waits for the call, or at once if it did not wait at all.
        expectEventually { events.isCancelWaitingForHandler || log.withLock { $0.contains("cancel returned") } }
        released.signal()
        #expect(canceller.wait(timeout: .now() + 20) == .success, "deadlock: cancel never returned")
        #expect(sender.wait(timeout: .now() + 20) == .success, "deadlock: send never returned")
        #expect(log.withLock { $0 } == ["handler returned from sessionExpired", "cancel returned"])
    }

    @Test("R5: a plain handler that cancels its own subscription from inside a call finishes it, without deadlock")
    func handlerCancelsItself() {
        let events = EventChannel<AppEvent>()
        let subscription = Locked<AnyCancellable?>(nil)
        let calls = Locked(0)
        let made = events.subscribe { _ in
            calls.withLock { $0 += 1 }
            subscription.withLock { $0 }?.cancel()
        }
        subscription.withLock { $0 = made }
        let sender = onAnotherThread { events.send(.sessionExpired) }
        #expect(sender.wait(timeout: .now() + 20) == .success, "deadlock: the handler's own cancel never returned")
        events.send(.refreshed(1))

        #expect(calls.withLock { $0 } == 1)
    }

    @Test("R5: an event queued while a cancelled plain handler was running never reaches it")
    func queuedEventAfterCancel() {
        let events = EventChannel<AppEvent>()
        let entered = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let received = Locked<[AppEvent]>([])
        let subscription = events.subscribe { event in
            received.withLock { $0.append(event) }
            guard event == .sessionExpired else { return }
            entered.signal()
            released.wait()
        }
        let sender = onAnotherThread { events.send(.sessionExpired) }
        #expect(entered.wait(timeout: .now() + 20) == .success, "the handler never started")
        // Queued behind the running call: the sending thread delivers it after the handler returns.
        events.send(.refreshed(1))

        let canceller = onAnotherThread { subscription.cancel() }
        expectEventually { events.isCancelWaitingForHandler }
        released.signal()
        #expect(canceller.wait(timeout: .now() + 20) == .success, "deadlock: cancel never returned")
        #expect(sender.wait(timeout: .now() + 20) == .success, "deadlock: send never returned")
        events.send(.refreshed(2))

        #expect(received.withLock { $0 } == [.sessionExpired])
    }
}
