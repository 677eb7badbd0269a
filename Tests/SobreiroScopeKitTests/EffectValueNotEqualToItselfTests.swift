import Dispatch
import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

/// A reading whose value may be NaN, which is not equal to itself.
struct NaNGauge: ViewState {
    var reading = 0.0
    var answers: [String] = []
}

/// A bound model whose activation runs `onActive`.
final class NaNGaugeModel: ViewModel<NaNGauge>, ScopedViewModel, @unchecked Sendable {
    let onActive: @MainActor (Activation<NaNGaugeModel>) -> Void

    @MainActor
    init(_ state: NaNGauge = NaNGauge(), onActive: @escaping @MainActor (Activation<NaNGaugeModel>) -> Void) {
        self.onActive = onActive
        super.init(initialState: state)
    }

    func didBecomeActive(_ activation: Activation<NaNGaugeModel>) {
        onActive(activation)
    }
}

@Suite("B3: a value not equal to itself")
@MainActor
struct EffectValueNotEqualToItselfTests {
    /// The committed state is exactly the state the run was started for (same version), but its value is not
    /// `==` to itself (NaN), so it never holds: the run drops its result rather than wait for a state that would
    /// hold it, and rather than write it back, which would count as a change of the value and start another run.
    @Test("B3: a run for a value not equal to itself (NaN) drops its result and stops, rather than wait for ever")
    func runForANaNValueWritesBack() async {
        let model = NaNGaugeModel(NaNGauge(reading: .nan)) { activation in
            activation.effect(.onChange(of: \.reading)) { reading in
                "answer for \(reading)"
            } reduce: { state, result in
                state.answers.append(result.get())
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)

        // No other state ever commits: the run's trigger is the committed state itself.
        let stopped = await stoppedWithin(model)
        #expect(stopped, "the run for the NaN reading never ended: its write-back waits for a state that never comes")
        #expect(model.state.answers == [], "a NaN value counts as changed at every state: \(model.state.answers.count)")
        behavior.detach()  // ends the effect, which resumes the waiting write-back
        _ = await stoppedWithin(model)
    }
}

/// Whether the effects of `model` stopped running within `seconds`.
func stoppedWithin(seconds: Double = patience, _ model: some AnyObject & Sendable) async -> Bool {
    guard let activity = EffectActivity.of(model) else { return true }
    return await activity.wait(until: .stopped) { expire in
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: expire)
    }
}
