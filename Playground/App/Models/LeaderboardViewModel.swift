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
    /// The standings of the last load that succeeded, with every live score counted since; kept on screen while a
    /// refresh runs.
    var standings: [Standing] = []
    /// The number of the last score the standings count.
    var lastScore = 0
    /// The player the cursor is on, whom opening pushes; `nil` for the first row.
    var highlighted: String?

    /// The player the cursor is on, if the list has any.
    var highlightedPlayer: String? {
        standings.contains { $0.player == highlighted } ? highlighted : standings.first?.player
    }

    /// Takes the standings a load brought, unless the live scores have already counted a later score.
    mutating func load(_ snapshot: StandingsSnapshot) {
        phase = .loaded
        guard snapshot.lastScore >= lastScore else { return }
        standings = snapshot.standings
        lastScore = snapshot.lastScore
    }

    /// Adds a live score to its player's points and keeps the standings best first.
    ///
    /// A load and the stream both bring scores, and a score can reach the server's standings before the load
    /// reads them, yet reach this fold only after the load has written: the number says which scores the
    /// standings count already, so none is counted twice.
    mutating func count(_ score: ScoreEvent) {
        guard score.number > lastScore,
            let index = standings.firstIndex(where: { $0.player == score.player })
        else { return }
        standings[index].points += score.points
        standings = standings.ranked()
        lastScore = score.number
    }
}

/// The list screen's model. Its work is two effects of its activation, which run while the Leaderboard tab is in
/// the tree and stop with the tab: a load whenever the state is `.loading`, and a stream of live scores.
///
/// `refresh()` and `retry()` only ask for a load, by setting the phase; the effect sees that state and does
/// the work, so a refresh requested while the tab is closed runs when the tab opens.
///
/// The league client comes from the tree, read at each activation. The stream follows the leaderboard's own
/// listener on the feed, the same one at every activation. The feed broadcasts, so this listener is independent
/// of the writer that updates the user models, and it counts every player's scores, where following the user
/// models' states would only see the two players that have one, as whole states to compare rather than scores to
/// add. While the tab is closed the feed holds the scores for this listener; the next activation's stream starts
/// with them, so the standings catch up as the tab opens.
final class LeaderboardViewModel: ViewModel<LeaderboardState>, @unchecked Sendable {
    let log: ActivityLogViewModel

    init(log: ActivityLogViewModel) {
        self.log = log
        super.init(initialState: LeaderboardState())
    }

    func refresh() {
        write { $0.phase = .loading }
    }

    func retry() {
        refresh()
    }

    /// Moves the cursor `offset` rows down (up if negative), stopping at the first and last rows.
    func moveHighlight(by offset: Int) {
        write { state in
            guard let current = state.highlightedPlayer,
                let index = state.standings.firstIndex(where: { $0.player == current })
            else { return }
            let moved = min(max(index + offset, 0), state.standings.count - 1)
            state.highlighted = state.standings[moved].player
        }
    }
}

extension LeaderboardViewModel: ScopedViewModel {
    func didBecomeActive(_ activation: Activation<LeaderboardViewModel>) {
        let client = dependency(LeagueClientKey.self)
        activation.effect(.when { $0.phase == .loading }) { _ in
            try await client.standings()
        } reduce: { state, result in
            switch result {
            case .success(let snapshot): state.load(snapshot)
            case .failure(let error): state.phase = .failed(message: "\(error)")
            }
        }
        // Each score is folded in a transaction of this model, off the main actor. A score that arrives as the
        // tab closes is dropped with the iteration, since nothing is written after deactivation; the next load
        // brings it.
        activation.effect(.elements(of: client.scores(for: "leaderboard"))) { state, score in
            state.count(score)
        }
        log.note(
            state.phase == .loading
                ? "Leaderboard on: its effects load and stream scores"
                : "Leaderboard on: it streams scores, loads on refresh"
        )
    }

    func didBecomeInactive() {
        log.note(
            state.phase == .loading
                ? "Leaderboard off: its load and stream are cancelled"
                : "Leaderboard off: its score stream has stopped"
        )
    }
}
