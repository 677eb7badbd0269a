import SobreiroPrimitives

/// The league's server, faked in memory: every player's points, the live feed of scores, and a switch that
/// makes the next request fail as if the network had dropped.
///
/// Both sessions use it. The scripted session decides when each request completes (``ScriptedLatency``); the
/// interactive one lets them take a moment of real time (``SimulatedLatency``).
final class League: Sendable {
    /// The players of the team and their points when the app starts.
    static let opening: [Standing] = [
        Standing(player: "Ana", points: 1_240),
        Standing(player: "Bruno", points: 1_180),
        Standing(player: "Caro", points: 1_105),
        Standing(player: "Dani", points: 990),
    ]

    private struct Table {
        var standings: [Standing]
        var lastScore = 0
        /// Each player's latest scores, newest last.
        var latestScores: [String: [Int]] = [:]
        var failsNextRequest = false
    }

    /// Every score the server records, pushed to whoever listens.
    let feed = ScoreFeed()
    private let table: Locked<Table>

    init(standings: [Standing] = League.opening) {
        table = Locked(Table(standings: standings))
    }

    /// The standings now, best first; players level on points are listed by name.
    var standings: [Standing] {
        snapshot.standings
    }

    /// The standings now, best first, and the number of the last score they count.
    var snapshot: StandingsSnapshot {
        table.withLock { table in
            StandingsSnapshot(standings: table.standings.ranked(), lastScore: table.lastScore)
        }
    }

    /// The points of `player` now.
    func points(of player: String) -> Int {
        table.withLock { table in table.standings.first { $0.player == player }?.points ?? 0 }
    }

    /// The record of `player` now; a player the league does not know has no points and the last rank.
    func record(of player: String) -> PlayerRecord {
        table.withLock { table in
            let ranked = table.standings.ranked()
            let index = ranked.firstIndex { $0.player == player } ?? ranked.count
            return PlayerRecord(
                player: player,
                points: index < ranked.count ? ranked[index].points : 0,
                rank: index + 1,
                teamSize: ranked.count,
                ahead: index > 0 ? ranked[index - 1] : nil,
                latestScores: table.latestScores[player] ?? []
            )
        }
    }

    /// Records a score, numbers it and pushes it on the live feed.
    ///
    /// Scores are recorded one at a time, by the ticker's task or by the script, so the feed receives them in the
    /// order of their numbers.
    func score(_ points: Int, for player: String) {
        let event = table.withLock { table -> ScoreEvent? in
            guard let index = table.standings.firstIndex(where: { $0.player == player }) else { return nil }
            table.standings[index].points += points
            table.latestScores[player] = Array(((table.latestScores[player] ?? []) + [points]).suffix(3))
            table.lastScore += 1
            return ScoreEvent(number: table.lastScore, player: player, points: points)
        }
        if let event { feed.push(event) }
    }

    /// Makes the next request that completes fail with ``LeagueError/networkUnreachable``.
    func failNextRequest() {
        table.withLock { $0.failsNextRequest = true }
    }

    /// Whether the request completing now should fail; a failure is used up by the request that takes it.
    func takeFailure() -> Bool {
        table.withLock { table in
            defer { table.failsNextRequest = false }
            return table.failsNextRequest
        }
    }
}
