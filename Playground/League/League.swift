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
        table.withLock { table in
            table.standings.sorted { ($1.points, $0.player) < ($0.points, $1.player) }
        }
    }

    /// The points of `player` now.
    func points(of player: String) -> Int {
        table.withLock { table in table.standings.first { $0.player == player }?.points ?? 0 }
    }

    /// Records a score and pushes it on the live feed.
    func score(_ points: Int, for player: String) {
        table.withLock { table in
            guard let index = table.standings.firstIndex(where: { $0.player == player }) else { return }
            table.standings[index].points += points
        }
        feed.push(ScoreEvent(player: player, points: points))
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
