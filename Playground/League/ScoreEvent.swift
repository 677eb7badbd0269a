/// A score recorded by the server: who scored, and how many points.
struct ScoreEvent: Equatable, Sendable {
    let player: String
    let points: Int
}
