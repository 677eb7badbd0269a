import ScopeKit
import Sobreiro
import SobreiroScopeKit

/// The leaderboard screen: the standings, and whether they are loading, loaded or failed to load.
struct LeaderboardState: ViewState {
    enum Phase: Equatable, Sendable {
        case loading
        case loaded
        case failed(message: String)
    }

    var phase = Phase.loading
    /// The standings of the last load that succeeded; kept on screen while a refresh runs.
    var standings: [Standing] = []
}

/// The list screen's model. Its load is an effect of its activation: it runs while the Leaderboard tab is in the
/// tree, whenever the state is `.loading`, and stops with the tab.
///
/// `refresh()` and `retry()` only ask for a load, by setting the phase; the effect sees that state and does
/// the work, so a refresh requested while the tab is closed runs when the tab opens.
final class LeaderboardViewModel: ViewModel<LeaderboardState>, @unchecked Sendable {
    let client: LeagueClient
    let log: ActivityLogViewModel

    init(client: LeagueClient, log: ActivityLogViewModel) {
        self.client = client
        self.log = log
        super.init(initialState: LeaderboardState())
    }

    func refresh() {
        write { $0.phase = .loading }
    }

    func retry() {
        refresh()
    }
}

extension LeaderboardViewModel: ScopedViewModel {
    func didBecomeActive(_ activation: Activation<LeaderboardViewModel>) {
        activation.effect(when: { $0.phase == .loading }) { [client] _ in
            try await client.standings()
        } reduce: { state, result in
            switch result {
            case .success(let standings):
                state = LeaderboardState(phase: .loaded, standings: standings)
            case .failure(let error):
                state.phase = .failed(message: "\(error)")
            }
        }
        log.note(
            state.phase == .loading
                ? "Leaderboard on: its effect loads the standings"
                : "Leaderboard on: its effect waits for a refresh"
        )
    }

    func didBecomeInactive() {
        log.note(
            state.phase == .loading
                ? "Leaderboard off: its load in flight is cancelled"
                : "Leaderboard off: its effect has stopped"
        )
    }
}
