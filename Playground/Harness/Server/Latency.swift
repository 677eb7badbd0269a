/// How long a request takes to come back: the only difference between the scripted and the live network.
protocol Latency: Sendable {
    /// Returns when the request may complete.
    ///
    /// - Throws: `CancellationError` if the calling task is cancelled first.
    func wait() async throws
}
