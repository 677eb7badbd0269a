import ScopeKit
import Sobreiro
import SobreiroScopeKit

/// The profile screen: your points, and how far you are from the front-runner.
struct ProfileState: ViewState {
    var name = ""
    var points = 0
    var leader = ""
    var leaderPoints = 0
}

/// The profile's model. While the Profile tab is in the tree it follows you and the front-runner; while the tab
/// is closed it follows nothing, and it catches up when the tab opens again.
final class ProfileViewModel: ViewModel<ProfileState>, @unchecked Sendable {
    let you: UserViewModel
    let frontRunner: FrontRunnerViewModel
    let log: ActivityLogViewModel

    init(you: UserViewModel, frontRunner: FrontRunnerViewModel, log: ActivityLogViewModel) {
        self.you = you
        self.frontRunner = frontRunner
        self.log = log
        super.init(initialState: ProfileState())
    }

    func youDidChange(_ you: UserState) {
        write { state in
            state.name = you.name
            state.points = you.points
        }
    }

    func frontRunnerDidChange(_ frontRunner: FrontRunnerState) {
        write { state in
            state.leader = frontRunner.name
            state.leaderPoints = frontRunner.points
        }
    }
}

extension ProfileViewModel: ScopedViewModel {
    func didBecomeActive(_ activation: Activation<ProfileViewModel>) {
        subscribe(to: you, onChange: ProfileViewModel.youDidChange).store(in: activation)
        subscribe(to: frontRunner, onChange: ProfileViewModel.frontRunnerDidChange).store(in: activation)
        log.note("Profile on: it follows \(you.state.name) and \(frontRunner.state.name)")
    }

    func didBecomeInactive() {
        log.note("Profile off: it follows nobody")
    }
}
