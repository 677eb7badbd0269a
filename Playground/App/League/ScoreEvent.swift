/// A score recorded by the server: who scored, how many points, and its number in the server's count of scores.
///
/// The number lets a client that both loads the standings and follows the scores tell which scores a load
/// already counted (see ``StandingsSnapshot/lastScore``).
struct ScoreEvent: Equatable, Sendable {
    /// 1 for the first score the server records, then one more for each.
    let number: Int
    let player: String
    let points: Int
}
