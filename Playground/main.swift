import ScopeKit
import Sobreiro

// A list screen in a terminal: one state value, one view model, one renderer, and a scope that loads the
// list while it is active.

enum ListState: ViewState {
    case loading
    case loaded([String])
    case failed(message: String)
}

final class ListViewModel: ViewModel<ListState>, @unchecked Sendable {
    init() {
        super.init(initialState: .loading)
    }

    func didLoad(_ items: [String]) {
        update { .loaded(items) }
    }

    func didFail(_ message: String) {
        update { .failed(message: message) }
    }

    func reload() {
        update { .loading }
    }
}

final class TerminalListView: StatefulView {
    func render(state: ListState) {
        switch state {
        case .loading:
            print("⏳ loading…")
        case .loaded(let items):
            print("📋 \(items.count) items: \(items.joined(separator: ", "))")
        case .failed(let message):
            print("⚠️  \(message)")
        }
    }
}

@MainActor
final class ListScreen: Scope {
    let viewModel = ListViewModel()
    let view = TerminalListView()
    var attempts = 0

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        print("— screen active")
        viewModel.subscribe(view: view)
        attempts += 1
        if attempts == 1 {
            viewModel.didFail("The network is unreachable")
        } else {
            viewModel.didLoad(["cork", "oak", "acorn"])
        }
        AnyCancellable { print("— screen work cancelled") }.store(in: &cancellables)
    }

    override func didDeactivate() {
        viewModel.reload()
        print("— screen inactive")
    }
}

@MainActor
func main() {
    do {
        let root = RootScope()
        let screen = ListScreen()
        root.host(screen)  // activates: first attempt fails
        screen.detach()  // deactivates: work cancelled, state reset
        root.host(screen)  // activates again: second attempt loads
        screen.viewModel.didLoad(["cork", "oak", "acorn"])  // equal to the current state: nothing is rendered
        print("— releasing the tree")
    }
    print("— done")
}

MainActor.assumeIsolated { main() }
