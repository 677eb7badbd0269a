import Sobreiro

/// Draws the list screen: the standings, with a cursor on the player that opening pushes, then a line that says
/// whether they are fresh, loading or failed.
final class LeaderboardView: StatefulView, Sendable {
    let frame = RenderedFrame<LeaderboardState>(placeholder: Panel(title: "Leaderboard", lines: []))
    let yourName: String

    init(yourName: String) {
        self.yourName = yourName
    }

    func render(state: LeaderboardState) {
        frame.record(state, as: Panel(title: "Leaderboard", lines: rows(of: state) + [""] + [status(of: state)]))
    }

    private func rows(of state: LeaderboardState) -> [String] {
        guard !state.standings.isEmpty else { return ["(no standings yet)"] }
        let highlighted = state.highlightedPlayer
        return state.standings.enumerated().map { index, standing in
            let name = standing.player == yourName ? "\(standing.player) (you)" : standing.player
            let cursor = standing.player == highlighted ? "›" : " "
            return Panel.columns("\(cursor) \(index + 1).  \(name)", Points.text(standing.points))
        }
    }

    private func status(of state: LeaderboardState) -> String {
        switch state.phase {
        case .loading: state.standings.isEmpty ? "Loading the standings…" : "Refreshing…"
        case .loaded: "Up to date."
        case .failed(let message): "! \(message) Press r to retry."
        }
    }
}
