import Sobreiro

/// Draws the tab bar: the team's name and the two tabs, the selected one in brackets.
final class TabBarView: StatefulView, Sendable {
    let frame = RenderedFrame<TabsState>(placeholder: Panel(title: TabBarView.title, lines: []))

    private static let title = "Team Cork · this week"

    func render(state: TabsState) {
        let tabs = Tab.allCases.enumerated().map { index, tab in
            let label = "\(index + 1) \(tab.title)"
            return tab == state.selected ? "[\(label)]" : " \(label) "
        }
        frame.record(state, as: Panel(title: Self.title, lines: [tabs.joined(separator: "  ")]))
    }
}
