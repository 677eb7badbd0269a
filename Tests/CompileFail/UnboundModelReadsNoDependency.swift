// Proves: a view model reads dependencies only through what its binding hands it (the activation, or the
// dependencies given to didLoad); on its own, outside a tree, it has no way to read them.
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

@MainActor
func readOutsideATree() {
    // expected-error@+1 {{'Dependencies' initializer is inaccessible due to 'internal' protection level}}
    _ = Dependencies(reader: Behavior())
}
