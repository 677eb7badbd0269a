/// One listener's scores, as an `AsyncSequence`: what the app iterates to follow the live feed.
///
/// The listener lives as long as the part of the app that follows the scores, and the feed holds its scores
/// while nobody iterates it. So one listener serves every activation: each makes an iteration of its own, which
/// starts with the scores held since the last one ended. One iteration at a time: a new one ends the one before.
/// An iteration ends, returning `nil`, when its task is cancelled, as an `AsyncStream`'s does; it never fails.
struct ScoreListener: AsyncSequence, Sendable {
    typealias Element = ScoreEvent
    typealias Failure = Never

    let feed: ScoreFeed
    let id: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(feed: feed, id: id)
    }

    struct Iterator: AsyncIteratorProtocol {
        typealias Element = ScoreEvent
        typealias Failure = Never

        let feed: ScoreFeed
        let id: Int

        mutating func next() async -> ScoreEvent? {
            await feed.next(for: id)
        }
    }
}
