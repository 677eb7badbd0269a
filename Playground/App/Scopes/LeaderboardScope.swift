import ScopeKit
import Sobreiro
import SobreiroScopeKit

/// The Leaderboard tab's feature: it keeps the list model and runs its work while the tab is in the tree, and
/// hosts one ``PlayerDetailScope`` for each screen on the tab's stack.
///
/// Push and pop are writes to ``navigation``; the route below turns each change into hosting and evicting.
@MainActor
final class LeaderboardScope: Scope {
    let list: LeaderboardViewModel
    let navigation = NavigationViewModel()

    init(log: ActivityLogViewModel) {
        list = LeaderboardViewModel(log: log)
        super.init()
        bind(list)
        // The closure captures the log, never `self`: a route that held its scope would keep it alive.
        hostChildren(following: navigation.map(\.path)) { [log] screen in
            PlayerDetailScope(screen: screen, log: log)
        }
    }

    /// Pushes the detail of the player the list's cursor is on.
    func openHighlighted() {
        guard let player = list.state.highlightedPlayer else { return }
        navigation.push(player)
    }
}
