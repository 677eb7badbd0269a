// Proves: the isolated conformance `@MainActor StatefulView` that the fix-it proposes is rejected too.
import Sobreiro

struct ScoreState: ViewState {
    var points = 0
}

@MainActor
// expected-error@+1 {{cannot form main actor-isolated conformance of 'Label' to SendableMetatype-inheriting protocol}}
final class Label: @MainActor StatefulView {
    var text = ""
    func render(state: ScoreState) { text = "\(state.points) points" }
}
