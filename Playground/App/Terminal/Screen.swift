import Sobreiro

/// The terminal window: one renderer per panel, each subscribed to its model for as long as the screen lives,
/// and a renderer for each player's detail presented on the Leaderboard tab's stack.
///
/// A frame stacks the tab bar, the selected tab's panels and the activity log; on the Leaderboard tab, the detail
/// on top of the stack, if any, stands where the standings were. The tabs' renderers stay subscribed when their
/// tab is hidden, as a tab's views stay in memory in a phone app; what the tabs start and stop is the work of
/// their features' scopes. A detail's renderer lives from ``present(_:)`` to ``dismiss(_:)``, which the detail's
/// scope calls as it activates and deactivates.
@MainActor
final class Screen: PlayerDetailPresenter {
    let tabBar = TabBarView()
    let leaderboard = LeaderboardView(yourName: AppScope.yourName)
    let frontRunner: FrontRunnerView
    let profile = ProfileView()
    let activity = ActivityView()
    /// The app whose models the panels show.
    let app: AppScope
    /// The details presented, bottom first, each with its renderer and that renderer's subscription.
    private(set) var details:
        [(model: PlayerDetailViewModel, view: PlayerDetailView, subscription: StateSubscription)] = []
    private var onChange: (@Sendable () -> Void)?

    init(app: AppScope) {
        self.app = app
        frontRunner = FrontRunnerView(following: app.frontRunner)
        app.tabs.subscribe(view: tabBar)
        app.leaderboard.list.subscribe(view: leaderboard)
        app.profile.profile.subscribe(view: profile)
        app.log.subscribe(view: activity)
    }

    /// The frame as the renderers drew it last, one string per terminal line.
    var lines: [String] {
        var panels = [tabBar.frame.panel]
        switch tabBar.frame.state?.selected ?? .leaderboard {
        case .leaderboard:
            panels += [details.last?.view.frame.panel ?? leaderboard.frame.panel, frontRunner.frame.panel]
        case .profile: panels.append(profile.frame.panel)
        }
        panels.append(activity.frame.panel)
        return panels.flatMap { $0.drawn() }
    }

    /// The renderer of the detail on top of the stack, if one is presented.
    var topDetail: PlayerDetailView? {
        details.last?.view
    }

    func present(_ detail: PlayerDetailViewModel) {
        let view = PlayerDetailView()
        if let onChange { view.frame.observe(onChange) }
        details.append((detail, view, detail.subscribe(view: view)))
        onChange?()
    }

    func dismiss(_ detail: PlayerDetailViewModel) {
        guard let index = details.lastIndex(where: { $0.model === detail }) else { return }
        details.remove(at: index).subscription.cancel()
        onChange?()
    }

    /// Calls `onChange` after every render of any panel, on the rendering thread, and as a detail is presented or
    /// dismissed.
    func observeChanges(_ onChange: @escaping @Sendable () -> Void) {
        self.onChange = onChange
        tabBar.frame.observe(onChange)
        leaderboard.frame.observe(onChange)
        frontRunner.frame.observe(onChange)
        profile.frame.observe(onChange)
        activity.frame.observe(onChange)
        for detail in details { detail.view.frame.observe(onChange) }
    }
}
