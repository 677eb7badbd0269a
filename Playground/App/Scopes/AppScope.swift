import ScopeKit
import Sobreiro
import SobreiroScopeKit

/// The app: its shared models, the live-score writer of the user models, and whichever tab's feature the tab bar
/// asks for.
///
/// The tree it builds under the root, which provides the league client, the clock and the presenter of screens
/// to everything below:
///
/// ```
/// RootScope                       provides LeagueClientKey, ClockKey, PresenterKey
/// └── AppScope                    follows tabs.selected
///     ├── LiveScores              the background writer of the user models, always on while the app is
///     └── LeaderboardScope        or ProfileScope, one at a time; the leaderboard streams the scores itself
///         └── PlayerDetailScope   one per screen on the tab's stack, following navigation.path
/// ```
@MainActor
final class AppScope: Scope {
    let tabs = TabsViewModel()
    let log = ActivityLogViewModel()
    let you: UserViewModel
    let frontRunner: FrontRunnerViewModel
    let leaderboard: LeaderboardScope
    let profile: ProfileScope

    /// The signed-in player.
    static let yourName = "Bruno"

    /// Builds the app for a team whose standings are `team` when the app starts.
    init(team: [Standing]) {
        let team = team.ranked()
        you = UserViewModel(name: Self.yourName, points: team.first { $0.player == Self.yourName }?.points ?? 0)
        let leader = team[0]
        frontRunner = FrontRunnerViewModel(user: UserViewModel(name: leader.player, points: leader.points))
        leaderboard = LeaderboardScope(log: log)
        profile = ProfileScope(profile: ProfileViewModel(you: you, frontRunner: frontRunner, log: log))
        super.init()
        host(LiveScores(players: [frontRunner.user, you], log: log))
        // The closure captures the two features, never `self`: a route that held its scope would keep it alive.
        hostChild(following: tabs.map(\.selected)) { [leaderboard, profile] tab -> Behavior in
            switch tab {
            case .leaderboard: leaderboard
            case .profile: profile
            }
        }
    }

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        log.note("App on: its children activate after it")
    }

    override func didDeactivate() {
        log.note("App off: its children deactivated before it")
    }
}
