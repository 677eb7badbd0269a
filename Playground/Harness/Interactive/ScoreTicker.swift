/// The live server of the interactive session: every couple of seconds a player scores, in a fixed rotation
/// that keeps the same front-runner however long the session runs.
enum ScoreTicker {
    static let rotation: [(player: String, points: Int)] = [
        ("Ana", 30),
        ("Caro", 20),
        ("Bruno", 25),
        ("Dani", 10),
    ]

    /// Starts scoring on `league`; cancel the task to stop.
    static func start(on league: League, every interval: Duration = .seconds(2)) -> Task<Void, Never> {
        Task.detached {
            var turn = 0
            while (try? await Task.sleep(for: interval)) != nil {
                let (player, points) = rotation[turn % rotation.count]
                league.score(points, for: player)
                turn += 1
            }
        }
    }
}
