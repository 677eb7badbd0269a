import ScopeKit
import Sobreiro
import SobreiroScopeKit

/// The app: its shared models, the live-score writer of the user models, and whichever tab's feature the tab bar
/// asks for.
///
/// The tree it builds under the root:
///
/// ```
/// RootScope
/// └── AppScope              follows tabs.selected
///     ├── LiveScores        the background writer of the user models, always on while the app is
///     └── LeaderboardScope  or ProfileScope, one at a time; the leaderboard streams the scores itself
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

    init(league: League, latency: any Latency) {
        you = UserViewModel(name: Self.yourName, points: league.points(of: Self.yourName))
        let leader = league.standings[0]
        frontRunner = FrontRunnerViewModel(user: UserViewModel(name: leader.player, points: leader.points))
        leaderboard = LeaderboardScope(
            list: LeaderboardViewModel(
                client: LeagueClient(league: league, latency: latency),
                scores: league.feed.listen(),
                log: log
            )
        )
        profile = ProfileScope(profile: ProfileViewModel(you: you, frontRunner: frontRunner, log: log))
        super.init()
        host(LiveScores(scores: league.feed.listen(), players: [frontRunner.user, you], log: log))
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
