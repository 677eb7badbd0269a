// Proves: a @MainActor class cannot conform to StatefulView, whose render(state:) runs on any thread.
import Sobreiro

struct ScoreState: ViewState {
    var points = 0
}

// expected-error@+6 {{conformance of 'Label' to protocol 'StatefulView' crosses into main actor-isolated code}}
// expected-note@+5 {{mark all declarations used in the conformance 'nonisolated'}}
// expected-note@+4 {{isolate this conformance to the main actor with '@MainActor'}}
// expected-note@+3 {{turn data races into runtime errors with '@preconcurrency'}}
// expected-note@+4 {{main actor-isolated instance method 'render(state:)' cannot satisfy nonisolated requirement}}
@MainActor
final class Label: StatefulView {
    var text = ""
    func render(state: ScoreState) { text = "\(state.points) points" }
}
