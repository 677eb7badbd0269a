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
/// request reaching the scripted network, or a render of the expected state, such as a score counted. Then
/// ``Screen/settle()`` waits for every renderer to catch up before the frame is printed, so the output is the
/// same on every run, whichever threads did the work. The trace, when asked for, shows those threads and is
/// not part of the committed transcript.
@MainActor
final class ScriptedSession {
    private let league = League()
    private let network = ScriptedLatency()
    private let clock = ScriptedClock()
    private let app: LeaderboardApp
    private let trace: TraceTimeline?
    private var step = 0

    init(trace: TraceTimeline?) {
        trace?.install()
        self.trace = trace
        app = LeaderboardApp(league: league, latency: network, clock: clock)
    }

    func play() async {
        app.start()
        await network.waitForRequest()
        await show("The app starts: the Leaderboard tab is hosted; its effect asks for the standings, its stream waits")

        network.completeRequest()
        await app.screen.leaderboard.frame.waitUntil { $0.phase == .loaded }
        await show("The server answers: the effect writes the standings back in a transaction, off the main actor")

        league.score(30, for: "Ana")
        await app.screen.frontRunner.frame.waitUntil { $0.points == 1_270 }
        await app.screen.leaderboard.frame.waitUntil { $0.standings.contains(Standing(player: "Ana", points: 1_270)) }
        await show(
            "Ana scores 30: the writer updates her model, then the banner; the stream folds it into the standings")

        league.score(90, for: "Caro")
        await app.screen.leaderboard.frame.waitUntil { $0.standings.contains(Standing(player: "Caro", points: 1_195)) }
        await show("Caro scores 90: no user model follows her, but the stream counts her, and she passes you")

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
        await show("The retry succeeds: the server's standings count the same scores the stream folded in")

        await playPushAndPop()

        app.tabs.select(.profile)
        await profileHasCaughtUp()
        await show(
            "Profile tab (2): the Leaderboard's scope leaves the tree and its stream stops; the Profile follows you")

        league.score(50, for: "Bruno")
        await app.screen.profile.frame.waitUntil { $0.points == 1_230 }
        await show(
            "Bruno scores 50: the writer updates your model and the Profile; the feed holds it for the Leaderboard")

        app.tabs.select(.leaderboard)
        app.list.refresh()
        await network.waitForRequest()
        await app.screen.leaderboard.frame.waitUntil { $0.standings.contains(Standing(player: "Bruno", points: 1_230)) }
        await show("Leaderboard tab (1), then refresh (r): its stream restarts with your held 50; a load is in flight")

        app.tabs.select(.profile)
        await network.waitUntilNoneWaiting()
        await show(
            "Profile tab again, mid-load: deactivation cancels the request and the stream; nothing is written back")

        app.tabs.select(.leaderboard)
        await network.waitForRequest()
        await show("Leaderboard tab: the state still asks for a load, so the new activation's effect starts another")

        network.completeRequest()
        await app.screen.leaderboard.frame.waitUntil { $0.phase == .loaded }
        await show("The load completes: the server's standings agree with what the stream counted")

        app.stop()
        await show("Quit: the app scope leaves the tree; the tab, then the writer, then the app deactivate")
    }

    /// Opens a player's detail on the Leaderboard tab's stack, lets its poll run twice on the script's clock, and
    /// goes back.
    private func playPushAndPop() async {
        app.list.moveHighlight(by: 1)
        app.scope.leaderboard.openHighlighted()
        await network.waitForRequest()
        await show("Down (↓), then Enter: a push onto the stack's state hosts Caro's detail; its poll asks the server")

        network.completeRequest()
        await app.screen.topDetail?.frame.waitUntil { $0.record != nil }
        await show("The server answers: the detail shows Caro's week; under it, the list still streams the scores")

        league.score(40, for: "Caro")
        await app.screen.leaderboard.frame.waitUntil { $0.standings.contains(Standing(player: "Caro", points: 1_235)) }
        await clock.waitForSleeper()
        clock.advance(by: PlayerDetailViewModel.pollInterval)
        await network.waitForRequest()
        network.completeRequest()
        await app.screen.topDetail?.frame.waitUntil { $0.record?.points == 1_235 }
        await show("Caro scores 40, and 5 s pass on the app's clock: the detail polls again and shows her new score")

        app.scope.leaderboard.closeTopDetail()
        await app.screen.activity.frame.waitUntil { $0.entries.last == "Caro's detail off: its poll has stopped" }
        await show(
            "Back (Esc): the detail dismisses itself; its dismissal removes it from the stack's state, and its poll ends"
        )
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
