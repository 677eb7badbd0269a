import Sobreiro

/// A screen on the Leaderboard tab's stack: one player's detail.
///
/// Its `id` is the screen's identity on the stack, so the same player pushed twice makes two screens, each with
/// a feature of its own.
struct PlayerScreen: Identifiable, Equatable, Sendable {
    let id: Int
    let player: String
}

/// The Leaderboard tab's navigation: the screens pushed over the list, bottom first.
struct NavigationState: ViewState {
    var path: [PlayerScreen] = []
    /// The identity of the last screen pushed.
    var lastID = 0
}

/// The stack as state. Push and pop are writes; the leaderboard's scope follows `path` and hosts one detail
/// feature per screen, so a screen's work runs exactly while the screen is on the stack.
final class NavigationViewModel: ViewModel<NavigationState>, @unchecked Sendable {
    init() {
        super.init(initialState: NavigationState())
    }

    /// Pushes the detail of `player` on top.
    func push(_ player: String) {
        write { state in
            state.lastID += 1
            state.path.append(PlayerScreen(id: state.lastID, player: player))
        }
    }

    /// Pops the top screen, if any.
    func pop() {
        write { _ = $0.path.popLast() }
    }

    /// Pops every screen, back to the list.
    /// Removes the screen `id` wherever it is on the stack: the dismissal that the stack gives each screen.
    func close(_ id: PlayerScreen.ID) {
        write { $0.path.removeAll { $0.id == id } }
    }

    func popToRoot() {
        write { $0.path = [] }
    }
}
