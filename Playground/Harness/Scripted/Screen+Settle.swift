// The scripted session's wait for a still frame. An app draws its frames as they come; only a script that prints
// one frame per step needs to know that every renderer has caught up, so this lives in the harness.

import Sobreiro

extension Screen {
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
        for detail in details { await detail.view.frame.waitUntilShowing(detail.model.state) }
    }
}
