// Proves: a view model reads dependencies only as a ScopedViewModel, which a binding places in a tree, and only on
// the main actor, where the tree lives: a plain model has no way to read them, and code off the main actor awaits
// the read.
import ScopeKit
import Sobreiro
import SobreiroScopeKit

struct ClientState: ViewState {
    var name = ""
}

enum NameKey: DependencyKey {
    static let defaultValue = "live"
}

final class ClientModel: ViewModel<ClientState>, @unchecked Sendable {
    init() {
        super.init(initialState: ClientState())
        // expected-error@+1 {{cannot find 'dependency' in scope}}
        _ = dependency(NameKey.self)
    }
}

final class ScopedClientModel: ViewModel<ClientState>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: ClientState())
    }

    nonisolated func readOffTheMainActor() {
        // expected-error@+1 {{call to main actor-isolated instance method 'dependency' in a synchronous nonisolated context}}
        _ = dependency(NameKey.self)
    }

    nonisolated func awaitTheRead() async {
        _ = await dependency(NameKey.self)
    }
}
