/// One row of the leaderboard: a player and their points this week.
struct Standing: Equatable, Sendable {
    let player: String
    var points: Int
}

extension [Standing] {
    /// The standings best first; players level on points are listed by name.
    func ranked() -> [Standing] {
        sorted { ($1.points, $0.player) < ($0.points, $1.player) }
    }
}

/// The standings as the server read them, with the number of the last score they count.
struct StandingsSnapshot: Equatable, Sendable {
    /// Best first.
    var standings: [Standing]
    /// The ``ScoreEvent/number`` of the last score recorded when the server read them; 0 before any score.
    var lastScore: Int
}
