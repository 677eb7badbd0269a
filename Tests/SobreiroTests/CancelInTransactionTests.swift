import Dispatch
import Foundation
import Sobreiro
import Synchronization
import TestSupport
import Testing

/// R5 for a cancel made inside a transaction of the subscription's own model: the transaction waits for a
/// call running on another thread once it unlocks, whoever removed the entry.
@Suite("Cancelling inside a transaction of the same model")
struct CancelInTransactionTests {
    @Test("R5: cancel inside a transaction of the same model waits even when another thread removed the entry")
    func cancelInTransactionAfterConcurrentRemoval() async {
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

        // Another thread ends the subscription first and waits for the render.
        let unsubscriber = onAnotherThread { model.unsubscribe(view: view) }
        await expectEventually { token.isWaitedForByCancel }

        // The cancel runs inside a transaction of the same model: `write` must return only after the render.
        let canceller = onAnotherThread {
            model.write { token.cancel() }
            log.record("write with cancel returned")
        }
        let returnedEarly = await signalled(canceller, within: 2)
        gate.release()
        if !returnedEarly { await expectSignalled(canceller) }
        await expectSignalled(unsubscriber)
        await expectSignalled(writer)
        #expect(log.all == ["render returned", "write with cancel returned"])
    }
}
