import ScopeKit
import Sobreiro

/// The background writer: while active, a detached task takes scores from its listener on the league's feed and
/// writes them into the user models, off the main actor. It reads the league client from the tree at each
/// activation.
///
/// The front-runner follows its user model on that task's thread; the banner, a main-actor renderer, receives
/// the change after a hop to the main actor. The task is stored in the activation's cancellables, so
/// deactivating this behavior stops the writer, and the feed holds new scores until it starts again. The
/// leaderboard follows the same feed through a listener of its own.
@MainActor
final class LiveScores: Behavior {
    let players: [UserViewModel]
    let log: ActivityLogViewModel

    init(players: [UserViewModel], log: ActivityLogViewModel) {
        self.players = players
        self.log = log
        super.init()
    }

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        // The same listener at every activation, so the scores pushed while this writer was off wait for it.
        let scores = dependency(LeagueClientKey.self).scores(for: "live scores")
        Task.detached { [players] in
            // Cancelling the task ends the iteration.
            for await event in scores {
                for player in players where player.state.name == event.player {
                    player.award(event.points)
                }
            }
        }
        .store(in: &cancellables)
        log.note("Live scores on: a task writes them to the user models")
    }

    override func didDeactivate() {
        log.note("Live scores off: the writer task is cancelled")
    }
}
