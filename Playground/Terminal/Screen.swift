import Sobreiro

/// The terminal window: one renderer per panel, each subscribed to its model for as long as the screen lives.
///
/// A frame stacks the tab bar, the selected tab's panels and the activity log. The renderers stay subscribed
/// when their tab is hidden, as a tab's views stay in memory in a phone app; what the tabs start and stop is the
/// work of their features' scopes.
@MainActor
final class Screen {
    let tabBar = TabBarView()
    let leaderboard = LeaderboardView(yourName: AppScope.yourName)
    let frontRunner: FrontRunnerView
    let profile = ProfileView()
    let activity = ActivityView()
    private let app: AppScope

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
        case .leaderboard: panels += [leaderboard.frame.panel, frontRunner.frame.panel]
        case .profile: panels.append(profile.frame.panel)
        }
        panels.append(activity.frame.panel)
        return panels.flatMap { $0.drawn() }
    }

    /// Returns once every renderer has drawn its model's current state.
    ///
    /// Renderers of models written on other threads, and the main-actor banner after its hop, may still be
    /// drawing when a step of the script ends; waiting for each one to catch up makes the frame the same on
    /// every run. Call it once the writes of a step are done.
    func settle() async {
        await tabBar.frame.waitUntilShowing(app.tabs.state)
        await leaderboard.frame.waitUntilShowing(app.leaderboard.list.state)
        await frontRunner.frame.waitUntilShowing(app.frontRunner.state)
        await profile.frame.waitUntilShowing(app.profile.profile.state)
        await activity.frame.waitUntilShowing(app.log.state)
    }

    /// Calls `onChange` after every render of any panel, on the rendering thread.
    func observeChanges(_ onChange: @escaping @Sendable () -> Void) {
        tabBar.frame.observe(onChange)
        leaderboard.frame.observe(onChange)
        frontRunner.frame.observe(onChange)
        profile.frame.observe(onChange)
        activity.frame.observe(onChange)
    }
}
