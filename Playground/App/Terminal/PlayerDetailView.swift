import Sobreiro

/// Draws a player's detail screen: rank, points, the gap to the player ahead and the latest scores.
final class PlayerDetailView: StatefulView, Sendable {
    let frame = RenderedFrame<PlayerDetailState>(placeholder: Panel(title: "Player", lines: []))

    func render(state: PlayerDetailState) {
        let title = "Player · \(state.player)"
        guard let record = state.record else {
            let line = state.failure.map { "! \($0)" } ?? "Loading \(state.player)'s week…"
            return frame.record(state, as: Panel(title: title, lines: [line]))
        }
        let ahead = record.ahead.map { "\(Points.text($0.points - record.points)) behind \($0.player)" }
        let latest = record.latestScores.map { "+\(Points.grouped($0))" }.joined(separator: "  ")
        let lines = [
            Panel.columns("Rank \(record.rank) of \(record.teamSize)", Points.text(record.points)),
            ahead ?? "Leads the team.",
            "Latest scores: " + (latest.isEmpty ? "none this week" : latest),
            "",
            state.failure.map { "! \($0) The next poll retries." } ?? "Esc or b: back to the standings",
        ]
        frame.record(state, as: Panel(title: title, lines: lines))
    }
}
