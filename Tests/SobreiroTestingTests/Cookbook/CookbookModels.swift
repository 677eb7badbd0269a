import ScopeKit
import Sobreiro
import SobreiroScopeKit

// The models of the "Effects cookbook" in the Scoped view models article, compiled as written there.

// MARK: Search with debounce

struct SearchState: ViewState {
    var query = ""
    var results: [String] = []
}

protocol SearchAPI: Sendable {
    func search(_ query: String) async throws -> [String]
}

/// The search's service, which the tree provides.
enum SearchAPIKey: DependencyKey {
    typealias Value = any SearchAPI
}

final class SearchViewModel: ViewModel<SearchState>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: SearchState())
    }

    func type(_ query: String) { write { $0.query = query } }

    func didBecomeActive(_ activation: Activation<SearchViewModel>) {
        let api = dependency(SearchAPIKey.self)
        activation.effect(.onChange(of: \.query), timing: .debounced(for: .milliseconds(300))) { query in
            query.isEmpty ? [] : try await api.search(query)
        } reduce: { state, result in
            state.results = (try? result.get()) ?? []
        }
    }
}

// MARK: A throttled button

struct FeedState: ViewState {
    var posts: [String] = []
    var refreshes = 0
}

protocol FeedAPI: Sendable {
    func posts() async throws -> [String]
}

final class FeedViewModel: ViewModel<FeedState>, ScopedViewModel, @unchecked Sendable {
    let api: any FeedAPI
    private let refreshing = EffectInput<Void>()

    init(api: any FeedAPI) {
        self.api = api
        super.init(initialState: FeedState())
    }

    func refresh() { refreshing.send() }

    func didBecomeActive(_ activation: Activation<FeedViewModel>) {
        activation.effect(.input(refreshing), timing: .throttled(for: .seconds(2), keeping: .first)) {
            [api] in
            try await api.posts()
        } reduce: { state, result in
            state.refreshes += 1
            if case .success(let posts) = result { state.posts = posts }
        }
    }
}

// MARK: Retry with backoff

struct ProfileState: ViewState {
    enum Phase: Equatable, Sendable {
        case loading
        case loaded(String)
        case failed(String)
    }
    var phase = Phase.loading
}

protocol ProfileAPI: Sendable {
    func name() async throws -> String
}

final class ProfileViewModel: ViewModel<ProfileState>, ScopedViewModel, @unchecked Sendable {
    let api: any ProfileAPI

    init(api: any ProfileAPI) {
        self.api = api
        super.init(initialState: ProfileState())
    }

    func reload() { write { $0.phase = .loading } }

    func didBecomeActive(_ activation: Activation<ProfileViewModel>) {
        activation.effect(
            .when { $0.phase == .loading },
            timing: .retrying(upTo: 3, initialDelay: .seconds(1))
        ) { [api] _ in
            try await api.name()
        } reduce: { state, result in
            switch result {
            case .success(let name): state.phase = .loaded(name)
            case .failure(let error): state.phase = .failed("\(error)")
            }
        }
    }
}

// MARK: Polling

struct ScoreState: ViewState {
    var isLive = true
    var score = 0
}

protocol ScoreAPI: Sendable {
    func score() async throws -> Int
}

final class ScoreViewModel: ViewModel<ScoreState>, ScopedViewModel, @unchecked Sendable {
    let api: any ScoreAPI

    init(api: any ScoreAPI) {
        self.api = api
        super.init(initialState: ScoreState())
    }

    func endMatch() { write { $0.isLive = false } }

    func didBecomeActive(_ activation: Activation<ScoreViewModel>) {
        activation.effect(.every(.seconds(30), while: \.isLive)) { [api] _ in
            try await api.score()
        } reduce: { state, result in
            if case .success(let score) = result { state.score = score }
        }
    }
}

// MARK: A socket stream

struct ChatState: ViewState {
    var messages: [String] = []
}

final class ChatViewModel: ViewModel<ChatState>, ScopedViewModel, @unchecked Sendable {
    let incoming: AsyncStream<String>

    init(incoming: AsyncStream<String>) {
        self.incoming = incoming
        super.init(initialState: ChatState())
    }

    func didBecomeActive(_ activation: Activation<ChatViewModel>) {
        activation.effect(.elements(of: incoming)) { state, message in
            state.messages.append(message)
        }
    }
}

// MARK: Cancelling an upload

struct UploadState: ViewState {
    enum Status: Equatable, Sendable {
        case idle, uploading, done, failed, cancelled
    }
    var status = Status.idle
}

protocol UploadAPI: Sendable {
    func upload(_ photo: [UInt8]) async throws
}

final class UploadViewModel: ViewModel<UploadState>, ScopedViewModel, @unchecked Sendable {
    let api: any UploadAPI
    private let uploading = EffectInput<[UInt8]>()

    init(api: any UploadAPI) {
        self.api = api
        super.init(initialState: UploadState())
    }

    func upload(_ photo: [UInt8]) {
        write { $0.status = .uploading }
        uploading.send(photo)
    }

    func cancelUpload() {
        uploading.cancel()  // nothing the upload returns is written from now on
        write { $0.status = .cancelled }
    }

    func didBecomeActive(_ activation: Activation<UploadViewModel>) {
        activation.effect(.input(uploading)) { [api] photo in
            try await api.upload(photo)
        } reduce: { state, result in
            state.status = (try? result.get()) != nil ? .done : .failed
        }
    }
}

// MARK: A timer

struct TimerViewState: ViewState {
    var count = 0
    var isTimerOn = false
}

final class TimerViewModel: ViewModel<TimerViewState>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: TimerViewState())
    }

    func toggle() { write { $0.isTimerOn.toggle() } }

    func didBecomeActive(_ activation: Activation<TimerViewModel>) {
        activation.effect(.every(.seconds(1), while: \.isTimerOn, startingNow: false)) { state, _ in
            state.count += 1
        }
    }
}

// MARK: Time's up: save, then dismiss

struct MeetingsState: ViewState {
    var transcripts: [String] = []
}

/// The meetings that several screens share.
final class MeetingsViewModel: ViewModel<MeetingsState>, @unchecked Sendable {
    init() {
        super.init(initialState: MeetingsState())
    }
}

struct RecordMeetingState: ViewState {
    var secondsElapsed = 0
    var duration = 3
    var isSaved = false
    var isTimeUp: Bool { secondsElapsed >= duration }
}

final class RecordMeetingViewModel: ViewModel<RecordMeetingState>, ScopedViewModel, @unchecked Sendable {
    let meetings: MeetingsViewModel

    init(meetings: MeetingsViewModel) {
        self.meetings = meetings
        super.init(initialState: RecordMeetingState())
    }

    /// Saves the transcript into the shared model, then dismisses the screen.
    @MainActor
    func endMeeting() {
        let seconds = write { state in
            state.isSaved = true
            return state.secondsElapsed
        }
        meetings.write { $0.transcripts.append("\(seconds) s") }
        dependency(DismissKey.self)()  // what shows the screen provides its dismissal
    }

    func didBecomeActive(_ activation: Activation<RecordMeetingViewModel>) {
        activation.effect(.every(.seconds(1), while: { !$0.isTimeUp }, startingNow: false)) { state, _ in
            state.secondsElapsed += 1
        }
        activation.effect(.onChange(of: \.isTimeUp)) { isTimeUp in
            if isTimeUp { await self.endMeeting() }
        }
    }
}
