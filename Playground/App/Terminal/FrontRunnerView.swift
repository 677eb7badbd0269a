import Dispatch
import Observation
import Sobreiro
import SobreiroObservation

/// Draws the front-runner banner on the main actor, through `Observation`, as a SwiftUI view would.
///
/// It reads the fields of an observed object (`model.observed()`) inside `withObservationTracking`, and draws
/// again when one of the fields it read changes. A change written by the live-score task reaches the object
/// after a hop to the main actor, coalesced with any other change that lands before the hop runs; `--trace`
/// shows the hop, then which of the fields read changed.
@MainActor
final class FrontRunnerView {
    let frame = RenderedFrame<FrontRunnerState>(placeholder: Panel(title: "Front-runner", lines: []))
    private let banner: ObservedState<FrontRunnerState>

    init(following model: FrontRunnerViewModel) {
        banner = model.observed()
        draw()
    }

    /// Draws the banner from the fields it reads, and asks to be called again when one of them changes.
    private func draw() {
        withObservationTracking {
            let shown = FrontRunnerState(name: banner.name, points: banner.points, gainedLive: banner.gainedLive)
            var line = "\(shown.name) leads with \(Points.text(shown.points))"
            if shown.gainedLive != 0 { line += "  (+\(Points.grouped(shown.gainedLive)) live)" }
            frame.record(shown, as: Panel(title: "Front-runner", lines: [line]))
        } onChange: { [weak self] in
            // Called as a field is about to change: draw once the object holds the new state, on the next turn
            // of the main queue, as SwiftUI redraws on its next update.
            DispatchQueue.main.async { MainActor.assumeIsolated { self?.draw() } }
        }
    }
}
