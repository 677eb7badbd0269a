import Sobreiro

/// Draws the profile screen: your points and the gap to the front-runner.
final class ProfileView: StatefulView, Sendable {
    let frame = RenderedFrame<ProfileState>(placeholder: Panel(title: "Profile", lines: []))

    func render(state: ProfileState) {
        guard !state.name.isEmpty else {
            return frame.record(state, as: Panel(title: "Profile", lines: ["Open the tab to see your points."]))
        }
        let gap = state.leaderPoints - state.points
        let standing =
            state.leader == state.name || gap < 0
            ? "You lead the team."
            : "\(Points.text(gap)) behind \(state.leader)"
        let lines = [Panel.columns("\(state.name) (you)", Points.text(state.points)), standing]
        frame.record(state, as: Panel(title: "Profile", lines: lines))
    }
}
