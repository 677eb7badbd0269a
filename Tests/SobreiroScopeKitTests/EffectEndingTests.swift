import Dispatch
import Foundation
import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

@Suite("B3: ending an effect fences the write-backs under way")
@MainActor
struct EffectEndingTests {
    @Test("B3: a deactivation during a write-back's transaction returns only once that write-back has committed")
    func deactivationWaitsForAClaimedWriteBack() async {
        // Given a write-back inside its transaction, held in its reduce
        let entered = Gate<Bool>()
        let release = DispatchSemaphore(value: 0)
        let model = GaugeModel { activation in
            activation.effect(.when { $0.phase == "loading" }) { _ in
                "done"
            } reduce: { state, result in
                // The write-back's task holds a thread of the pool here; the release comes from a thread of the
                // test's own, which needs no thread of the pool to run.
                entered.open(true)
                _ = release.wait(timeout: .now() + patience)
                state.results.append(result.get())
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        model.write { $0.phase = "loading" }
        let reached = await withDeadline { await entered.wait() }
        #expect(reached == true, "the write-back never reached its reduce")

        // When the behavior deactivates while the reduce is held, and the reduce is let go only later
        // Not a dispatch worker: on Linux the workers are the threads of the pool, which may all be held.
        let releaser = onAnotherThread {
            Thread.sleep(forTimeInterval: 0.2)
            release.signal()
        }
        behavior.detach()
        await expectSignalled(releaser)

        // Then the deactivation returned after the write-back committed, never before
        #expect(model.state.results == ["done"], "the deactivation returned while a write-back was committing")
    }

    @Test("B3: a deactivation while a run has no write-back under way drops its result, with no transaction")
    func deactivationDropsAnUnclaimedRun() async {
        // Given a run whose operation waits for the test, ignoring cancellation
        let started = Gate<Bool>()
        let finish = Gate<Bool>()
        let model = GaugeModel { activation in
            activation.effect(.when { $0.phase == "loading" }) { _ in
                started.open(true)
                _ = await finish.wait(honoursCancellation: false)
                return "late"
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        model.write { $0.phase = "loading" }
        let reached = await withDeadline { await started.wait() }
        #expect(reached == true, "the operation never started")
        let versionBefore = model.committedVersion

        // When the behavior deactivates, then the operation returns
        behavior.detach()
        // The state's NaN makes any transaction commit, even one that changes nothing.
        #expect(model.committedVersion == versionBefore, "ending an effect with no write-back under way committed")
        finish.open(true)

        // Then its result is dropped
        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(model.state.results == [])
    }
}
