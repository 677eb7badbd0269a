import ScopeKit
import SobreiroScopeKit

/// Everything the app is made of, wired together: the server it talks to, its scope tree and its screen.
///
/// Both sessions build one. They differ only in the network's latency, the clock, and who presses the keys. The
/// root scope provides the services to the whole tree: no feature's initializer takes them.
@MainActor
final class LeaderboardApp {
    let league: League
    let root = RootScope()
    let scope: AppScope
    let screen: Screen

    init(league: League, latency: any Latency, clock: any Clock<Duration>) {
        self.league = league
        scope = AppScope(team: league.standings)
        screen = Screen(app: scope)
        root.provide(LeagueClientKey.self, LeagueClient(league: league, latency: latency))
        root.provide(ClockKey.self, clock)
        root.provide(PresenterKey.self, screen)
    }

    var tabs: TabsViewModel { scope.tabs }
    var list: LeaderboardViewModel { scope.leaderboard.list }
    var navigation: NavigationViewModel { scope.leaderboard.navigation }

    /// Puts the app in the tree: it activates, with the selected tab's feature and the live-score writer.
    func start() {
        root.host(scope)
    }

    /// Takes the app out of the tree: every feature, then the writer, then the app deactivate.
    func stop() {
        scope.detach()
    }
}
