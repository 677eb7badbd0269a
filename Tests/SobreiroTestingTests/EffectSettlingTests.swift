import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

/// A counter whose effect climbs one level per run until it reaches `top`, while a second effect on the same
/// model stamps every level: each write-back of one makes the other's run stale.
final class ClimbModel: ViewModel<ClimbModel.Climb>, ScopedViewModel, @unchecked Sendable {
    struct Climb: ViewState {
        var level = 0
        var stamped = -1
        var isClimbing = false
    }

    let top: Int

    init(top: Int) {
        self.top = top
        super.init(initialState: Climb())
    }

    func didBecomeActive(_ activation: Activation<ClimbModel>) {
        let top = top
        activation.effect(.when { $0.isClimbing && $0.level < top }) { state in
            await Task.yield()
            return state.level
        } reduce: { state, level in
            state.level = level.get() + 1
        }
        activation.effect(.onChange(of: \.level)) { level in
            await Task.yield()
            return level
        } reduce: { state, level in
            state.stamped = level.get()
        }
    }
}

@Suite("Settling effects")
@MainActor
struct EffectSettlingTests {
    @Test("settleEffects awaits a whole chain of write-backs of two effects that make each other's runs stale")
    func settlingAwaitsTheChain() async {
        for _ in 0..<20 {
            let model = ClimbModel(top: 30)
            let hosted = Hosted(model)
            model.write { $0.isClimbing = true }
            await settleEffects(of: model)
            #expect(model.state.level == 30, "settled at level \(model.state.level)")
            #expect(model.state.stamped == 30, "settled with stamp \(model.state.stamped)")
            hosted.screen.detach()
        }
    }
}
