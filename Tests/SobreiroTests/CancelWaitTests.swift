import Dispatch
import Foundation
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// A log that several threads append to, to check the order of what happened.
final class EventLog: Sendable {
    private let entries = Locked<[String]>([])
    func record(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// R5: once `cancel()` or an unsubscribe has returned, the subscription's code never runs again, even a call
/// that another thread had already started; and ending a subscription never deadlocks.
@Suite("Ending a subscription during its call")
struct CancelWaitTests {
    @Test("R5: cancel on another thread returns only after the handler's running call has returned")
    func cancelWaitsForRunningCall() async {
        let model = CounterModel()
        let follower = CounterModel()
        let gate = RenderGate()
        let log = EventLog()
        let token = follower.subscribe(to: model) { state in
            guard state.count == 1 else { return }
            gate.pause()
            log.record("handler returned")
        }
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()

        let canceller = onAnotherThread {
            token.cancel()
            log.record("cancel returned")
        }
        await expectEventually { token.isWaitedForByCancel }
        gate.release()
        await expectSignalled(canceller)
        await expectSignalled(writer)
        #expect(log.all == ["handler returned", "cancel returned"])
    }

    @Test("R5: unsubscribe(view:) on another thread returns only after the running render has returned")
    func unsubscribeWaitsForRunningRender() async {
        let model = CounterModel()
        let gate = RenderGate()
        let log = EventLog()
        let view = ProbeView<Counter> { state in
            guard state.count == 1 else { return }
            gate.pause()
            log.record("render returned")
        }
        let token = model.subscribe(view: view)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()

        let canceller = onAnotherThread {
            model.unsubscribe(view: view)
            log.record("unsubscribe returned")
        }
        await expectEventually { token.isWaitedForByCancel }
        gate.release()
        await expectSignalled(canceller)
        await expectSignalled(writer)
        #expect(log.all == ["render returned", "unsubscribe returned"])
    }

    @Test("R5: a handler that cancels its own subscription returns")
    func handlerCancelsItself() async {
        let model = CounterModel()
        let follower = CounterModel()
        let token = Locked<StateSubscription?>(nil)
        let calls = Atomic<Int>(0)
        let subscription = follower.subscribe(to: model) { (_: Counter) in
            calls.add(1, ordering: .relaxed)
            token.withLock { $0 }?.cancel()
        }
        token.withLock { $0 = subscription }
        await expectCompletes { model.write { $0.count = 1 } }
        model.write { $0.count = 2 }
        #expect(calls.load(ordering: .relaxed) == 2)
        token.withLock { $0 = nil }  // the token's handler holds the box that holds the token
    }

    @Test("R5: a cancel inside a transaction waits for the running call only after the transaction has unlocked")
    func cancelInsideTransaction() async {
        let model = CounterModel()
        let follower = CounterModel()
        let gate = RenderGate()
        let token = follower.subscribe(to: model) { state in
            guard state.count == 1 else { return }
            gate.pause()
            model.write { $0.label = "written by the handler" }
        }
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()

        // The cancel returns at once; the transaction waits for the call only once it has released the lock.
        let releaser = Task {
            await expectEventually { token.isWaitedForByCancel }
            gate.release()
        }
        await expectCompletes {
            model.write {
                model.state.label = "cancelling"
                token.cancel()
            }
            #expect(model.state.label == "written by the handler")
        }
        await releaser.value
        await expectSignalled(writer)
    }

    @Test("R5: handlers on two threads that cancel each other's running subscription do not deadlock")
    func crossCancel() async {
        let first = CounterModel()
        let second = CounterModel()
        let follower = CounterModel()
        let bothInside = DispatchGroup()
        bothInside.enter()
        bothInside.enter()
        let tokens = Locked<[StateSubscription]>([])
        let firstToken = follower.subscribe(to: first) { state in
            guard state.count == 1 else { return }
            bothInside.leave()
            bothInside.wait()
            tokens.withLock { $0[1] }.cancel()
        }
        let secondToken = follower.subscribe(to: second) { state in
            guard state.count == 1 else { return }
            bothInside.leave()
            bothInside.wait()
            tokens.withLock { $0[0] }.cancel()
        }
        tokens.withLock { $0 = [firstToken, secondToken] }
        let one = onAnotherThread { first.write { $0.count = 1 } }
        let two = onAnotherThread { second.write { $0.count = 1 } }
        await expectSignalled(one)
        await expectSignalled(two)
        tokens.withLock { $0 = [] }  // each token's handler holds the list of tokens
    }

    @Test("R5: a render that cancels a subscription running on another thread waits for that call")
    func cancelFromAnotherRender() async {
        let model = CounterModel()
        let other = CounterModel()
        let gate = RenderGate()
        let log = EventLog()
        let slow = ProbeView<Counter> { state in
            guard state.count == 1 else { return }
            gate.pause()
            log.record("slow render returned")
        }
        let slowToken = other.subscribe(view: slow)
        let busy = onAnotherThread { other.write { $0.count = 1 } }
        await gate.waitUntilPaused()

        let canceller = ProbeView<Counter> { state in
            guard state.count == 1 else { return }
            slowToken.cancel()
            log.record("cancel returned")
        }
        model.subscribe(view: canceller)
        let releaser = Task {
            await expectEventually { slowToken.isWaitedForByCancel }
            gate.release()
        }
        await expectCompletes { model.write { $0.count = 1 } }
        await releaser.value
        await expectSignalled(busy)
        #expect(log.all == ["slow render returned", "cancel returned"])
    }

    @Test("R5: a cancel inside a transaction of another model stops waiting when the running call needs that model")
    func cancelInsideOtherTransaction() async {
        let model = CounterModel()
        let other = CounterModel()
        let follower = CounterModel()
        let gate = RenderGate()
        let token = follower.subscribe(to: model) { state in
            guard state.count == 1 else { return }
            gate.pause()
            other.write { $0.label = "written by the handler" }
        }
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()

        let releaser = Task {
            await expectEventually { token.isWaitedForByCancel }
            gate.release()
        }
        // The handler blocks on the lock of `other`, which this transaction holds while its cancel waits for the
        // handler: the cancel stops waiting, and the handler writes once the transaction has unlocked.
        await expectCompletes {
            other.write {
                other.state.label = "cancelling"
                token.cancel()
            }
        }
        await releaser.value
        await expectSignalled(writer)
        #expect(other.state.label == "written by the handler")
    }
}
