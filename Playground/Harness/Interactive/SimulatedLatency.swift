/// A network that takes a moment of real time to answer, for the interactive session.
struct SimulatedLatency: Latency {
    var delay = Duration.milliseconds(700)

    func wait() async throws {
        try await Task.sleep(for: delay)
    }
}
