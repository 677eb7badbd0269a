// Proves: an effect's reduce runs inside a transaction on whichever thread finishes the operation, so it cannot
// touch main-actor state. (The asynchronous operation may, with `await`.)
import Sobreiro
import SobreiroScopeKit

struct LevelState: ViewState {
    var level = 0
}

@MainActor
final class LevelViewModel: ViewModel<LevelState>, ScopedViewModel, @unchecked Sendable {
    var step = 1  // expected-note {{mutation of this property is only permitted within the actor}}

    init() { super.init(initialState: LevelState()) }

    func didBecomeActive(_ activation: Activation<LevelViewModel>) {
        activation.effect(.when { $0.level < 5 }) { state in
            state.level + 1
        } reduce: { state, next in
            state.level = next.get()
            // expected-error@+1 {{main actor-isolated property 'step' can not be mutated from a Sendable closure}}
            self.step += 1
        }
    }
}
