import ScopeKit
import Sobreiro
import SobreiroTesting
import Synchronization
import Testing

// The tests of the "Effects cookbook" recipes, as the Testing view models article shows them.

struct FakeSearch: SearchAPI {
    func search(_ query: String) async throws -> [String] { [query, query + "s"] }
}

struct FakeFeed: FeedAPI {
    func posts() async throws -> [String] { ["hello"] }
}

struct NoNetwork: Error {}

/// Fails its first `failures` calls, then answers.
final class FlakyProfile: ProfileAPI {
    let failures: Int
    private let calls = Mutex(0)

    init(failures: Int) { self.failures = failures }

    func name() async throws -> String {
        let call = calls.withLock { calls in
            calls += 1
            return calls
        }
        if call <= failures { throw NoNetwork() }
        return "Ana"
    }
}

/// Answers 1, then 2, and so on.
final class CountingScores: ScoreAPI {
    private let calls = Mutex(0)

    func score() async throws -> Int {
        calls.withLock { calls in
            calls += 1
            return calls
        }
    }
}

/// Takes ten seconds on the test's clock to upload anything.
struct SlowUpload: UploadAPI {
    let clock: TestClock

    func upload(_ photo: [UInt8]) async throws { try await clock.sleep(for: .seconds(10)) }
}

@Suite("The effects cookbook")
@MainActor
struct CookbookTests {
    @Test("search: only the query the user stopped typing at is searched")
    func debouncedSearch() async {
        let search = TestHost(SearchViewModel(), dependencies: DependencyValues().with(SearchAPIKey.self, FakeSearch()))
        search.model.type("o")
        search.model.type("oak")
        await search.settleEffects()
        await search.clock.advance(by: .milliseconds(300))
        search.expect(
            SearchState(query: "o"), SearchState(query: "oak"), SearchState(query: "oak", results: ["oak", "oaks"]))
    }

    @Test("a throttled button: taps within two seconds of a refresh are ignored")
    func throttledButton() async {
        let feed = TestHost(FeedViewModel(api: FakeFeed()))
        for _ in 1...3 { feed.model.refresh() }
        await feed.settleEffects()
        feed.expect(FeedState(posts: ["hello"], refreshes: 1))
        await feed.clock.advance(by: .seconds(2))
        feed.model.refresh()
        await feed.settleEffects()
        feed.expect(FeedState(posts: ["hello"], refreshes: 2))
    }

    @Test("retry: two failures are retried after 1 s and 2 s, and only the answer reaches the state")
    func retryWithBackoff() async {
        let profile = TestHost(ProfileViewModel(api: FlakyProfile(failures: 2)))
        await profile.settleEffects()
        await profile.clock.advance(by: .seconds(1))
        await profile.clock.advance(by: .seconds(2))
        profile.expect(ProfileState(phase: .loaded("Ana")))
    }

    @Test("retry: the failure that gives up, after 1, 2 and 4 s, reaches the state")
    func retryGivesUp() async {
        let profile = TestHost(ProfileViewModel(api: FlakyProfile(failures: 9)))
        await profile.settleEffects()
        await profile.clock.advance(by: .seconds(7))
        profile.expect(ProfileState(phase: .failed("NoNetwork()")))
    }

    @Test("polling: every 30 s while the match is live, its own writes never stopping it")
    func polling() async {
        let scores = TestHost(ScoreViewModel(api: CountingScores()))
        await scores.settleEffects()
        await scores.clock.advance(by: .seconds(30))
        scores.model.endMatch()
        await scores.clock.advance(by: .seconds(30))
        scores.expect(ScoreState(score: 1), ScoreState(score: 2), ScoreState(isLive: false, score: 2))
    }

    @Test("a socket stream: each message is folded into the state, until the socket closes")
    func socketStream() async {
        let (messages, socket) = AsyncStream.makeStream(of: String.self)
        let chat = TestHost(ChatViewModel(incoming: messages))
        socket.yield("hi")
        socket.yield("there")
        socket.finish()
        await chat.settleEffects()
        chat.expect(ChatState(messages: ["hi"]), ChatState(messages: ["hi", "there"]))
    }

    @Test("cancelling an upload: nothing it returns is written")
    func cancellingAnUpload() async {
        let clock = TestClock()
        let upload = TestHost(UploadViewModel(api: SlowUpload(clock: clock)))
        upload.model.upload([1, 2, 3])
        await upload.settleEffects()
        upload.model.cancelUpload()
        await clock.advance(by: .seconds(10))
        upload.expect(UploadState(status: .uploading), UploadState(status: .cancelled))
    }

    @Test("a timer: the first tick comes a second after it is turned on, and turning it off stops it")
    func timer() async {
        let timer = TestHost(TimerViewModel())
        timer.model.toggle()
        await timer.clock.advance(by: .seconds(2))
        timer.model.toggle()
        await timer.clock.advance(by: .seconds(2))
        timer.expect(
            TimerViewState(isTimerOn: true), TimerViewState(count: 1, isTimerOn: true),
            TimerViewState(count: 2, isTimerOn: true), TimerViewState(count: 2))
    }

    @Test("time's up: the tick that uses up the time saves the meeting into the shared model once, then dismisses")
    func timeIsUp() async {
        let meetings = MeetingsViewModel()
        let meeting = TestHost(RecordMeetingViewModel(meetings: meetings))
        await meeting.clock.advance(by: .seconds(5))
        meeting.expect(
            RecordMeetingState(secondsElapsed: 1), RecordMeetingState(secondsElapsed: 2),
            RecordMeetingState(secondsElapsed: 3), RecordMeetingState(secondsElapsed: 3, isSaved: true))
        #expect(meetings.state.transcripts == ["3 s"])
        #expect(meeting.dismissals == 1)
    }
}
