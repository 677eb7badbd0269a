/// One row of the leaderboard: a player and their points this week.
struct Standing: Equatable, Sendable {
    let player: String
    var points: Int
}
