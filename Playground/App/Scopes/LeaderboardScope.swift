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
        // Each screen gets its dismissal: it removes that screen from the stack's state, which evicts it.
        hostChildren(following: navigation.map(\.path)) { [log, navigation] screen in
            let detail = PlayerDetailScope(screen: screen, log: log)
            detail.provide(DismissKey.self, Dismiss { navigation.close(screen.id) })
            return detail
        }
    }

    /// Pushes the detail of the player the list's cursor is on.
    /// Back (Esc): the detail on top of the stack, if any, dismisses itself.
    func closeTopDetail() {
        children.compactMap { ($0 as? PlayerDetailScope)?.detail }.last?.close()
    }

    func openHighlighted() {
        guard let player = list.state.highlightedPlayer else { return }
        navigation.push(player)
    }
}
