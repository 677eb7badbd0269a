import Sobreiro

/// Draws the front-runner banner, on the main actor.
///
/// A main-actor renderer is never called on the writer's thread: a change written by the live-score task reaches
/// it after a hop to the main actor, coalesced with any other change that lands before the hop runs.
@MainActor
final class FrontRunnerView: MainActorStatefulView {
    let frame = RenderedFrame<FrontRunnerState>(placeholder: Panel(title: "Front-runner", lines: []))

    func render(state: FrontRunnerState) {
        var line = "\(state.name) leads with \(Points.text(state.points))"
        if state.gainedLive != 0 { line += "  (+\(Points.grouped(state.gainedLive)) live)" }
        frame.record(state, as: Panel(title: "Front-runner", lines: [line]))
    }
}
