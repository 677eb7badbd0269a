import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

/// The list screen of the docs: loads through an effect that waits on a clock, fails, retries.
struct ListState: ViewState {
    enum Phase: Equatable {
        case loading
        case loaded([String])
        case failed(String)
    }

    var phase = Phase.loading
    var attempt = 1
}

struct Offline: Error {}

protocol ItemsAPI: Sendable {
    func items(attempt: Int) async throws -> [String]
}

/// Answers after a second on its clock; fails the first attempt.
struct SlowAPI: ItemsAPI {
    let clock: TestClock

    func items(attempt: Int) async throws -> [String] {
        try await clock.sleep(for: .seconds(1))
        if attempt == 1 { throw Offline() }
        return ["cork", "oak"]
    }
}

/// The list's service: the app provides the live one at its root, and a test its fake.
enum ItemsAPIKey: DependencyKey {
    typealias Value = any ItemsAPI
}

final class ListViewModel: ViewModel<ListState>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: ListState())
    }

    func retry() {
        write {
            $0.phase = .loading
            $0.attempt += 1
        }
    }

    func didBecomeActive(_ activation: Activation<ListViewModel>) {
        let api = dependency(ItemsAPIKey.self)
        activation.effect(.when { $0.phase == .loading }) { state in
            try await api.items(attempt: state.attempt)
        } reduce: { state, result in
            switch result {
            case .success(let items): state.phase = .loaded(items)
            case .failure: state.phase = .failed("offline")
            }
        }
    }
}

/// A child composed from the list: the number of items.
struct BadgeState: ViewState {
    var count = 0
}

final class BadgeViewModel: ViewModel<BadgeState>, @unchecked Sendable {
    init(list: ListViewModel) {
        super.init(initialState: BadgeState())
        subscribe(to: list.map(\.phase), onChange: BadgeViewModel.phaseDidChange)
    }

    func phaseDidChange(_ phase: ListState.Phase) {
        guard case .loaded(let items) = phase else { return }
        write { $0.count = items.count }
    }
}

@Suite("Testing a list screen end to end")
@MainActor
struct ListScreenTests {
    @Test("loading, an error, a retry, loaded; the badge follows; nothing leaks")
    func endToEnd() async {
        let clock = TestClock()
        var screen: Behavior? = Behavior()
        var list: ListViewModel? = ListViewModel()
        let states = StateRecorder(subscribedTo: list!)
        let badgeModel = BadgeViewModel(list: list!)
        let badge = StateRecorder(subscribedTo: badgeModel)
        screen!.bind(list!)
        let root = RootScope()
        root.provide(.testing(clock: clock))
        root.provide(ItemsAPIKey.self, SlowAPI(clock: clock))
        root.host(screen!)

        states.expect(ListState())
        await settleEffects(of: list!)
        await clock.advance(by: .seconds(1))
        states.expect(ListState(phase: .failed("offline")))

        list!.retry()
        await clock.advance(by: .seconds(1))
        states.expect(ListState(phase: .loading, attempt: 2), ListState(phase: .loaded(["cork", "oak"]), attempt: 2))
        badge.expect(BadgeState(count: 0), BadgeState(count: 2))

        expectEffectsFinished(of: list!)
        screen!.detach()
        await expectEffectsStopped(of: list!)
        expectDeallocated(&screen)
        expectDeallocated(&list)
    }

    @Test("the same screen hosted in one line: its end checks the effects and tears the tree down")
    func hosted() async {
        let clock = TestClock()
        let list = TestHost(
            ListViewModel(), clock: clock,
            dependencies: DependencyValues().with(ItemsAPIKey.self, SlowAPI(clock: clock)))
        let badgeModel = BadgeViewModel(list: list.model)
        let badge = StateRecorder(subscribedTo: badgeModel)

        await list.settleEffects()
        list.expect()
        await clock.advance(by: .seconds(1))
        list.expect(ListState(phase: .failed("offline")))

        list.model.retry()
        list.expect(ListState(phase: .loading, attempt: 2))
        await list.settleEffects()
        await clock.advance(by: .seconds(1))
        list.expect(ListState(phase: .loaded(["cork", "oak"]), attempt: 2))
        badge.expect(BadgeState(count: 0), BadgeState(count: 2))
    }
}
