import ScopeKit
import Sobreiro

/// The background writer: while active, a detached task takes scores from the league's feed and writes them into
/// the user models, off the main actor.
///
/// The front-runner follows its user model on that task's thread; the banner, a main-actor renderer, receives
/// the change after a hop to the main actor. The task is stored in the activation's cancellables, so
/// deactivating this behavior stops the writer, and the feed holds new scores until it starts again.
@MainActor
final class LiveScores: Behavior {
    let feed: ScoreFeed
    let players: [UserViewModel]
    let log: ActivityLogViewModel

    init(feed: ScoreFeed, players: [UserViewModel], log: ActivityLogViewModel) {
        self.feed = feed
        self.players = players
        self.log = log
        super.init()
    }

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        Task.detached { [feed, players] in
            while let event = try? await feed.next() {
                for player in players where player.state.name == event.player {
                    player.award(event.points)
                }
                feed.didApply()
            }
        }
        .store(in: &cancellables)
        log.note("Live scores on: a background task writes them")
    }

    override func didDeactivate() {
        log.note("Live scores off: the writer task is cancelled")
    }
}
