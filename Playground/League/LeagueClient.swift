/// The app's side of the league's API: what a view model calls to load data.
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
}
