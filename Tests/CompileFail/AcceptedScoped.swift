// Proves: a bound model that is not isolated to an actor stays usable from any thread (only its lifecycle hooks
// run on the main actor), and a @MainActor model can be bound too; a Sendable cancellable is wrapped and stored.
// No diagnostic at all.
import ScopeKit
import Sobreiro
import SobreiroScopeKit

struct FeedState: ViewState {
    var query = ""
    var results: [String] = []
}

final class FeedViewModel: ViewModel<FeedState>, ScopedViewModel, @unchecked Sendable {
    init() { super.init(initialState: FeedState()) }

    func search(_ query: String) { write { $0.query = query } }

    func didBecomeActive(_ activation: Activation<FeedViewModel>) {
        activation.effect(.onChange(of: \.query)) { query in
            [query]
        } reduce: { state, result in
            state.results = result.get()
        }
    }
}

func searchFromAnyThread() async {
    let model = FeedViewModel()
    await Task.detached { model.search("cork") }.value
}

@MainActor
final class BadgeViewModel: ViewModel<FeedState>, ScopedViewModel, @unchecked Sendable {
    private(set) var activations = 0

    init() { super.init(initialState: FeedState()) }

    func didBecomeActive(_ activation: Activation<BadgeViewModel>) {
        activations += 1
    }
}

@MainActor
func bindBoth(to screen: Scope) {
    screen.bind(FeedViewModel())
    screen.bind(BadgeViewModel())
}

/// A Sendable cancellable is wrapped, and stored in a set or a receiver, as Combine's would be.
final class SendablePoller: Cancellable, Sendable {
    func cancel() {}
}

@MainActor
func startPolling(in behavior: Behavior, cancellables: inout Set<AnyCancellable>) {
    let poller = SendablePoller()
    AnyCancellable(poller).store(in: &cancellables)
    poller.store(in: &cancellables)
    poller.store(in: behavior.whileActiveReceiver)
}
