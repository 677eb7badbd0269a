import Sobreiro

/// The banner above the leaderboard: who leads, with how many points, and how many of them arrived live.
struct FrontRunnerState: ViewState {
    var name = ""
    var points = 0
    /// Points gained since the app started following this player.
    var gainedLive = 0
}

/// A model composed from a user model: it follows the leading player and counts what they gain live.
///
/// It follows with an unapplied method, so the user model holds it weakly and no cycle forms even though it owns
/// that user model. The handler runs on whichever thread writes the user, here the live-score writer's
/// background task.
final class FrontRunnerViewModel: ViewModel<FrontRunnerState>, @unchecked Sendable {
    let user: UserViewModel

    init(user: UserViewModel) {
        self.user = user
        super.init(initialState: FrontRunnerState())
        subscribe(to: user, onChange: FrontRunnerViewModel.userDidChange)
    }

    func userDidChange(_ user: UserState) {
        write { state in
            if state.name == user.name {
                state.gainedLive += user.points - state.points
            } else {
                state.whole = FrontRunnerState(name: user.name, points: user.points)
            }
            state.points = user.points
        }
    }
}
