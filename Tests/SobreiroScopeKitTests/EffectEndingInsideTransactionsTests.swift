import Dispatch
import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

/// Ending an effect, a stream or a poller orders itself with the model's transactions without one of its own.
@Suite("B3: ending effects inside and beside the model's transactions")
@MainActor
struct EffectEndingInsideTransactionsTests {
    /// Ending a stream (or poller) takes the model's lock without a transaction of its own: with a state whose `==`
    /// is not reflexive (NaN), a transaction would commit a new version, a "change" made by the deactivation itself.
    @Test("ending a stream effect commits no new state, even when the state is not equal to itself")
    func endingAStreamCommitsNothing() async {
        let model = NaNGaugeModel(NaNGauge(reading: .nan)) { activation in
            activation.effect(.elements(of: AsyncStream<Int> { _ in })) { (state: inout NaNGauge, _: Int) in
                state.answers.append("element")
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        await settleEffects(of: model, timeout: patientWait)
        let before = model.versionedState.version
        behavior.detach()
        let after = model.versionedState.version
        #expect(after == before, "the deactivation committed version \(after) over \(before)")
        _ = await stoppedWithin(model)
    }

    /// A trigger's reduce that cancels its own trigger (a failure that gives up) runs inside the write-back's
    /// `write { $0 … }`; the cancel ends the runner, which sees its own claimed write-back committing, on this
    /// thread: it must not open a transaction of its own there, which would trap.
    @Test("cancelling a trigger from its own effect's reduce does not stop the program")
    func cancelFromOwnReduce() async {
        let child = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let done = DispatchSemaphore(value: 0)
            let model = await MainActor.run {
                let trigger = EffectInput<Void>()
                let model = FeedModel { _, activation in
                    activation.effect(.input(trigger)) {
                        1
                    } reduce: { state, _ in
                        trigger.cancel()
                        state.count = 1
                        done.signal()
                    }
                }
                let host = Host(model)
                trigger.send()
                return (model, host)
            }
            _ = await signalled(done)
            try? await Task.sleep(for: .milliseconds(200))
            // The tree ends and the model's effects stop before the process exits, so that nothing of them is
            // still in flight when LeakSanitizer looks at the heap.
            await MainActor.run { model.1.deactivate() }
            await expectEffectsStopped(of: model.0, timeout: patientWait)
        }
        let stderr = String(decoding: child?.standardErrorContent ?? [], as: UTF8.self)
        #expect(!stderr.contains("A transaction nested in write { $0 … } changed"), "\(stderr.prefix(300))")
    }

    /// Detaching a behavior from inside a transaction of its own model (`write { $0 … }`) ends a stream effect,
    /// whose end must not open a transaction of its own there, which would trip the `write { $0 … }` precondition.
    @Test("detaching a model from inside its own write { $0 … } with a stream effect does not stop the program")
    func detachInsideOwnWrite() async {
        let child = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let model = FeedModel { _, activation in
                    activation.effect(.elements(of: AsyncStream<Int> { _ in })) { (state: inout Feed, element: Int) in
                        state.count = element
                    }
                }
                let host = Host(model)
                model.write { state in
                    state.query = "closing"
                    host.deactivate()
                }
            }
        }
        let stderr = String(decoding: child?.standardErrorContent ?? [], as: UTF8.self)
        #expect(!stderr.contains("A transaction nested in write { $0 … } changed"), "\(stderr.prefix(300))")
    }
}
