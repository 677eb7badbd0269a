import ScopeKit

/// The app's side of the league's API: what the app's features call to load data and follow the scores.
///
/// The app's root scope provides one (``LeagueClientKey``); features read it where they stand in the tree.
struct LeagueClient: Sendable {
    let league: League
    let latency: any Latency

    /// Loads the standings, best first, with the number of the last score they count.
    ///
    /// - Throws: ``LeagueError/networkUnreachable`` when the network fails, or `CancellationError` when the
    ///   task that asked is cancelled while the request is in flight.
    func standings() async throws -> StandingsSnapshot {
        try await latency.wait()
        if league.takeFailure() { throw LeagueError.networkUnreachable }
        return league.snapshot
    }

    /// Loads one player's record: rank, points and latest scores.
    ///
    /// - Throws: As ``standings()``.
    func record(of player: String) async throws -> PlayerRecord {
        try await latency.wait()
        if league.takeFailure() { throw LeagueError.networkUnreachable }
        return league.record(of: player)
    }

    /// The live scores for the subscriber named `name`: the same listener each time, so the server holds the
    /// scores that arrive while that subscriber is not following them.
    func scores(for name: String) -> ScoreListener {
        league.feed.listener(named: name)
    }
}

/// The league client that features read from the tree. It has no default: the app provides the live one, and a
/// test overrides it.
enum LeagueClientKey: DependencyKey {
    typealias Value = LeagueClient
}
