import Sobreiro

/// Draws the activity log, oldest entry first.
final class ActivityView: StatefulView, Sendable {
    let frame = RenderedFrame<ActivityLog>(placeholder: Panel(title: "Activity", lines: []))

    func render(state: ActivityLog) {
        let lines = state.entries.isEmpty ? ["(nothing yet)"] : state.entries.map { "· \($0)" }
        frame.record(state, as: Panel(title: "Activity", lines: lines))
    }
}
