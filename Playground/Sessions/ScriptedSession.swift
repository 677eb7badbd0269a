import Dispatch
import Sobreiro

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Plays the app through a fixed story and prints every frame with a caption of what just happened.
///
/// Nothing here sleeps or races. Each step does something, then awaits the exact event that ends it: a
/// request reaching the scripted network, a render of the expected state, the writer applying a score. Then
/// ``Screen/settle()`` waits for every renderer to catch up before the frame is printed, so the output is the
/// same on every run, whichever threads did the work. The trace, when asked for, shows those threads and is
/// not part of the committed transcript.
@MainActor
final class ScriptedSession {
    private let league = League()
    private let network = ScriptedLatency()
    private let app: LeaderboardApp
    private let trace: TraceTimeline?
    private var step = 0

    init(trace: TraceTimeline?) {
        trace?.install()
        self.trace = trace
        app = LeaderboardApp(league: league, latency: network)
    }

    func play() async {
        app.start()
        await network.waitForRequest()
        await show("The app starts: the Leaderboard tab is hosted, and its effect asks the server for the standings")

        network.completeRequest()
        await app.screen.leaderboard.frame.waitUntil { $0.phase == .loaded }
        await show("The server answers: the effect writes the standings back in a transaction, off the main actor")

        league.score(30, for: "Ana")
        await league.feed.waitUntilApplied()
        await show("Ana scores 30 off the main actor: her user model, the front-runner, then the main-actor banner")

        app.list.refresh()
        await network.waitForRequest()
        await show("Refresh (r): the state asks for a load, so the effect starts one; the old standings stay up")

        league.failNextRequest()
        network.completeRequest()
        await app.screen.leaderboard.frame.waitUntil { $0.phase != .loading }
        await show("The network drops: the error reaches the effect's reduce and becomes the error state")

        app.list.retry()
        await network.waitForRequest()
        await show("Retry (r): the state asks for a load again")

        network.completeRequest()
        await app.screen.leaderboard.frame.waitUntil { $0.phase == .loaded }
        await show("The retry succeeds: the standings now count Ana's 30 live points")

        app.tabs.select(.profile)
        await profileHasCaughtUp()
        await show("Profile tab (2): the Leaderboard's scope leaves the tree, the Profile's joins it and follows you")

        league.score(50, for: "Bruno")
        await league.feed.waitUntilApplied()
        await show("Bruno scores 50: the writer updates your model; the open Profile follows it on the writer's thread")

        app.tabs.select(.leaderboard)
        app.list.refresh()
        await network.waitForRequest()
        await show("Leaderboard tab (1), then refresh (r): its scope is back in the tree, and a load is in flight")

        app.tabs.select(.profile)
        await network.waitUntilNoneWaiting()
        await show("Profile tab again, mid-load: deactivation cancelled the request; nothing will be written back")

        app.tabs.select(.leaderboard)
        await network.waitForRequest()
        await show("Leaderboard tab: the state still asks for a load, so the new activation's effect starts another")

        network.completeRequest()
        await app.screen.leaderboard.frame.waitUntil { $0.phase == .loaded }
        await show("The load completes: the standings now count your 50 points")

        app.stop()
        await show("Quit: the app scope leaves the tree; the tab, then the writer, then the app deactivate")
    }

    /// Prints the caption, the trace of the step if asked for, and the frame once every renderer has caught up.
    private func show(_ caption: String) async {
        await app.screen.settle()
        step += 1
        print("\(step). \(caption)")
        for line in trace?.takeAll() ?? [] { print("    │ \(line)") }
        for line in app.screen.lines { print(line) }
        print()
    }

    /// Returns once the profile shows what its two upstream models hold.
    ///
    /// The profile hears the front-runner's current state when it subscribes, from the main actor, unless the
    /// writer task is still finishing the delivery of an earlier score: then that task delivers it a moment
    /// later. ``Screen/settle()`` cannot know about a write that has not happened yet, so this waits for it.
    private func profileHasCaughtUp() async {
        let you = app.scope.you.state
        let frontRunner = app.scope.frontRunner.state
        await app.screen.profile.frame.waitUntil { profile in
            profile.name == you.name && profile.points == you.points
                && profile.leader == frontRunner.name && profile.leaderPoints == frontRunner.points
        }
    }

    /// Ends the process if the session has not finished after `seconds`: a script that waits for an event that
    /// never comes fails instead of hanging. The timer decides nothing about the order of events.
    nonisolated static func startWatchdog(seconds: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) {
            StandardStream.error("Playground: the scripted session did not finish within \(seconds) seconds\n")
            exit(1)
        }
    }
}
