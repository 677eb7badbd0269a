/// One player's week, as the server reports it on the player's page.
struct PlayerRecord: Equatable, Sendable {
    var player: String
    var points: Int
    /// 1 for the front-runner.
    var rank: Int
    var teamSize: Int
    /// The player ranked just above, with their points; `nil` for the front-runner.
    var ahead: Standing?
    /// The player's latest scores this week, newest last.
    var latestScores: [Int]
}
