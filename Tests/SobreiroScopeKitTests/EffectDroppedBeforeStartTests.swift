import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

/// Holds the behavior that a cancellation handler detaches, on the main actor.
@MainActor
private final class BehaviorHolder {
    var behavior: Behavior?
}

@Suite("B3: a run that its effect dropped before its task started never calls the operation")
@MainActor
struct EffectDroppedBeforeStartTests {
    @Test("B3: an effect that ends while a new state starts its run does not call that run's operation")
    func effectEndingAsARunStartsCallsNoOperation() async {
        // Given a run whose cancellation, on the thread that delivers the next state, deactivates the model: the
        // effect ends after that state's run was recorded and before its task exists
        let calls = Locked<[String]>([])
        let entered = Gate<Bool>()
        let holder = BehaviorHolder()
        let model = GaugeModel { activation in
            activation.effect(.when { $0.phase != "idle" }) { state in
                calls.withLock { $0.append(state.phase) }
                await withTaskCancellationHandler {
                    entered.open(true)
                    _ = await Gate<Bool>().wait()
                } onCancel: {
                    guard state.phase == "first" else { return }
                    MainActor.assumeIsolated { _ = holder.behavior?.detach() }
                }
                return state.phase
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let root = RootScope()
        holder.behavior = hostBound(model, under: root)
        model.write { $0.phase = "first" }
        let reached = await withDeadline { await entered.wait() }
        #expect(reached == true, "the first run never started")

        // When the next state is written on the main actor, which delivers it there: it cancels the first run
        model.write { $0.phase = "second" }
        #expect(holder.behavior?.state == .detached)

        // Then, once every operation has returned, the run of the second state never called its operation
        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(calls.withLock { $0 } == ["first"], "an operation started after its effect ended")
        #expect(model.state.results == [])
        // The model's closure holds the holder, which holds the behavior that holds the model.
        holder.behavior = nil
    }
}
