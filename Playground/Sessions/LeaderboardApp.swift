import ScopeKit

/// Everything the app is made of, wired together: the server it talks to, its scope tree and its screen.
///
/// Both sessions build one. They differ only in the network's latency and in who presses the keys.
@MainActor
final class LeaderboardApp {
    let league: League
    let root = RootScope()
    let scope: AppScope
    let screen: Screen

    init(league: League, latency: any Latency) {
        self.league = league
        scope = AppScope(league: league, latency: latency)
        screen = Screen(app: scope)
    }

    var tabs: TabsViewModel { scope.tabs }
    var list: LeaderboardViewModel { scope.leaderboard.list }

    /// Puts the app in the tree: it activates, with the selected tab's feature and the live-score writer.
    func start() {
        root.host(scope)
    }

    /// Takes the app out of the tree: every feature, then the writer, then the app deactivate.
    func stop() {
        scope.detach()
    }
}
