import ScopeKit
import SobreiroScopeKit

/// A screen on the Leaderboard tab's stack: one player's detail.
///
/// The leaderboard's scope builds one for each screen pushed and evicts it when the screen is popped, so its
/// model, and the poll that the model runs, live exactly while the screen is on the stack.
@MainActor
final class PlayerDetailScope: Scope {
    let detail: PlayerDetailViewModel
    /// The presenter read at activation, kept for the deactivation: a tree released with its root is torn down
    /// without the scopes above, so nothing would be left to read it from.
    private var presenter: (any PlayerDetailPresenter)?

    init(screen: PlayerScreen, log: ActivityLogViewModel) {
        detail = PlayerDetailViewModel(player: screen.player, log: log)
        super.init()
        bind(detail)
    }

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        let presenter = dependency(PresenterKey.self)
        presenter.present(detail)
        self.presenter = presenter
    }

    override func willDeactivate() {
        presenter?.dismiss(detail)
        presenter = nil
    }
}
