import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting

// The repository browser of the "Dependencies and navigation" article, compiled as written there.

// MARK: Keys

struct Repository: Identifiable, Equatable, Sendable {
    let id: Int
    var name: String
}

protocol RepositoryClient: Sendable {
    func repositories() async throws -> [Repository]
    func readme(of repository: Repository.ID) async throws -> String
}

/// The client that talks to the server. No default: the app provides one at its root.
enum RepositoryClientKey: DependencyKey {
    typealias Value = any RepositoryClient
}

/// The server's address, for links that users share; the public server unless a scope says otherwise, in the
/// app and in tests alike.
enum ServerKey: DependencyKey {
    static let defaultValue = "https://code.example"
    static var testValue: String { defaultValue }
}

// MARK: The list

struct RepositoryListState: ViewState {
    var repositories: [Repository] = []
    var failure: String?
}

final class RepositoryListViewModel: ViewModel<RepositoryListState>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: RepositoryListState())
    }

    func didBecomeActive(_ activation: Activation<RepositoryListViewModel>) {
        let client = dependency(RepositoryClientKey.self)
        activation.effect(.every(.seconds(300))) { _ in
            try await client.repositories()
        } reduce: { state, result in
            switch result {
            case .success(let repositories):
                state.repositories = repositories
                state.failure = nil
            case .failure(let error):
                state.failure = "\(error)"
            }
        }
    }
}

// MARK: The detail

struct RepositoryDetailState: ViewState {
    let repository: Repository.ID
    var link = ""
    var readme: String?
}

final class RepositoryDetailViewModel: ViewModel<RepositoryDetailState>, ScopedViewModel, @unchecked Sendable {
    init(repository: Repository.ID) {
        super.init(initialState: RepositoryDetailState(repository: repository))
    }

    func didLoad() {
        let server = dependency(ServerKey.self)
        write { $0.link = "\(server)/repositories/\($0.repository)" }
    }

    func didBecomeActive(_ activation: Activation<RepositoryDetailViewModel>) {
        let client = dependency(RepositoryClientKey.self)
        activation.effect(.when { $0.readme == nil }) { state in
            try await client.readme(of: state.repository)
        } reduce: { state, result in
            state.readme = (try? result.get()) ?? "No README"
        }
    }
}

// MARK: Navigation

/// One screen of the stack. Each push gets its own `id`, so the same repository can be on the stack twice.
struct Destination: Identifiable, Equatable, Sendable {
    let id: Int
    let repository: Repository.ID
}

struct NavigationState: ViewState {
    var path: [Destination] = []
    var pushes = 0
}

final class NavigationViewModel: ViewModel<NavigationState>, @unchecked Sendable {
    init() {
        super.init(initialState: NavigationState())
    }

    func push(_ repository: Repository.ID) {
        write { state in
            state.pushes += 1
            state.path.append(Destination(id: state.pushes, repository: repository))
        }
    }

    func pop() {
        write { _ = $0.path.popLast() }
    }

    func popToRoot() {
        write { $0.path.removeAll() }
    }

    /// Replaces the stack in one change, as a link from outside the app does.
    func open(_ repositories: [Repository.ID]) {
        write { state in
            var path: [Destination] = []
            for repository in repositories {
                state.pushes += 1
                path.append(Destination(id: state.pushes, repository: repository))
            }
            state.path = path
        }
    }
}

// MARK: Scopes

/// A repository's screen, pushed on the stack.
@MainActor
final class RepositoryScope: Scope {
    let detail: RepositoryDetailViewModel

    init(repository: Repository.ID) {
        detail = RepositoryDetailViewModel(repository: repository)
        super.init()
        bind(detail)
    }
}

/// The list at the bottom, and one repository screen per destination above it.
@MainActor
final class BrowserScope: Scope {
    let list = RepositoryListViewModel()
    let navigation = NavigationViewModel()

    override init() {
        super.init()
        bind(list)
        hostChildren(following: navigation.map(\.path)) { destination in
            RepositoryScope(repository: destination.repository)
        }
    }
}

@MainActor
func startBrowser(client: any RepositoryClient) -> RootScope {
    let root = RootScope()
    root.provide(RepositoryClientKey.self, client)
    // The test kit's view of the tree's effects, which the tests' waits for them need.
    root.provide(EffectTrackingKey.self, TestEffectTracking.shared)
    root.host(BrowserScope())
    return root
}
