import Sobreiro

/// The app's two tabs.
enum Tab: CaseIterable, Sendable {
    case leaderboard
    case profile

    var title: String {
        switch self {
        case .leaderboard: "Leaderboard"
        case .profile: "Profile"
        }
    }
}

/// Which tab is selected. The app scope follows it to decide which feature lives in the tree.
struct TabsState: ViewState {
    var selected = Tab.leaderboard
}

final class TabsViewModel: ViewModel<TabsState>, @unchecked Sendable {
    init() {
        super.init(initialState: TabsState())
    }

    func select(_ tab: Tab) {
        write { $0.selected = tab }
    }

    /// Selects the tab after the selected one, wrapping round.
    func selectNext() {
        write { state in
            let tabs = Tab.allCases
            let index = tabs.firstIndex(of: state.selected) ?? tabs.startIndex
            state.selected = tabs[(index + 1) % tabs.count]
        }
    }
}
