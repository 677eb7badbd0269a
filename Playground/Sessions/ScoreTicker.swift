/// The live server of the interactive session: every couple of seconds a player scores, in a fixed rotation
/// that keeps the same front-runner however long the session runs.
enum ScoreTicker {
    static let rotation = [
        ScoreEvent(player: "Ana", points: 30),
        ScoreEvent(player: "Caro", points: 20),
        ScoreEvent(player: "Bruno", points: 25),
        ScoreEvent(player: "Dani", points: 10),
    ]

    /// Starts scoring on `league`; cancel the task to stop.
    static func start(on league: League, every interval: Duration = .seconds(2)) -> Task<Void, Never> {
        Task.detached {
            var turn = 0
            while (try? await Task.sleep(for: interval)) != nil {
                let event = rotation[turn % rotation.count]
                league.score(event.points, for: event.player)
                turn += 1
            }
        }
    }
}
