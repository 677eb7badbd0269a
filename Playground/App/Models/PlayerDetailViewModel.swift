import ScopeKit
import Sobreiro
import SobreiroScopeKit

/// A player's detail screen: their record, once the first poll has brought it.
struct PlayerDetailState: ViewState {
    let player: String
    var record: PlayerRecord?
    var failure: String?
}

/// The model of a screen on the stack. It exists while its screen is on the stack; while active, it polls the
/// server for the player's record on the app's clock.
///
/// It takes only what identifies it, the player: the client and the clock come from the tree, where the app's
/// root scope provides them and a test can override them.
final class PlayerDetailViewModel: ViewModel<PlayerDetailState>, @unchecked Sendable {
    /// The time between the end of one poll and the start of the next.
    static let pollInterval = Duration.seconds(5)

    let log: ActivityLogViewModel

    init(player: String, log: ActivityLogViewModel) {
        self.log = log
        super.init(initialState: PlayerDetailState(player: player))
    }
}

extension PlayerDetailViewModel: ScopedViewModel {
    func didBecomeActive(_ activation: Activation<PlayerDetailViewModel>) {
        let client = dependency(LeagueClientKey.self)
        activation.effect(.every(Self.pollInterval)) { state in
            try await client.record(of: state.player)
        } reduce: { state, result in
            switch result {
            case .success(let record):
                state.record = record
                state.failure = nil
            case .failure(let error):
                state.failure = "\(error)"
            }
        }
        log.note("\(state.player)'s detail on: it polls every \(Self.pollInterval.components.seconds) s")
    }

    /// Back: the screen dismisses itself, with the dismissal that the stack showing it provides.
    @MainActor func close() {
        log.note("\(state.player)'s detail dismisses itself")
        dependency(DismissKey.self)()
    }

    func didBecomeInactive() {
        log.note("\(state.player)'s detail off: its poll has stopped")
    }
}
