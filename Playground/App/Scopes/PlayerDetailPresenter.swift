import ScopeKit

/// Where the screens pushed on the Leaderboard tab's stack show themselves: the terminal in this app, a
/// navigation controller or a `NavigationStack`'s destination in an app on a phone.
///
/// The app's root scope provides it (``PresenterKey``), so a screen's scope shows its model while active without
/// anything above it passing the presenter down.
@MainActor
protocol PlayerDetailPresenter: AnyObject {
    /// Shows `detail` on top of what is shown.
    func present(_ detail: PlayerDetailViewModel)

    /// Stops showing `detail`; what was under it shows again.
    func dismiss(_ detail: PlayerDetailViewModel)
}

/// The presenter that screens on a stack read from the tree; it has no default, so a screen hosted where none is
/// provided traps, naming the key and its place in the tree.
enum PresenterKey: DependencyKey {
    typealias Value = any PlayerDetailPresenter
}
