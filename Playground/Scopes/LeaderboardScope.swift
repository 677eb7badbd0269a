import ScopeKit
import SobreiroScopeKit

/// The Leaderboard tab's feature: it keeps the list model and runs its work while the tab is in the tree.
@MainActor
final class LeaderboardScope: Scope {
    let list: LeaderboardViewModel

    init(list: LeaderboardViewModel) {
        self.list = list
        super.init()
        bind(list)
    }
}
