import Sobreiro
import SobreiroPrimitives
import Testing

/// A view that draws a bare `String`, as a search field does.
private final class QueryLabel: StatefulView, @unchecked Sendable {
    private let rendered = Locked<[String]>([])
    var history: [String] { rendered.withLock { $0 } }

    func render(state: String) {
        rendered.withLock { $0.append(state) }
    }
}

/// A main-actor view that draws a count.
@MainActor
private final class CountBadge: MainActorStatefulView {
    var history: [Int] = []

    func render(state: Int) {
        history.append(state)
    }
}

private struct Search: ViewState {
    var query = ""
    var results: [String] = []
}

private final class SearchModel: ViewModel<Search>, @unchecked Sendable {}

@Suite("V1: views of projected values that are not ViewState")
struct ProjectedValueViewTests {
    @Test("V1: a view whose State is String renders map(\\.query), only when the query changes")
    func stringProjectionFeedsAView() {
        let model = SearchModel(initialState: Search())
        let label = QueryLabel()

        let subscription = model.map(\.query).subscribe(view: label)
        model.write { $0.query = "ana" }
        model.write { $0.results = ["Ana"] }
        model.write { $0.query = "ana b" }

        #expect(label.history == ["", "ana", "ana b"])
        subscription.cancel()
    }

    @Test("V1: a main-actor view whose State is Int renders map(\\.results.count)")
    @MainActor
    func countProjectionFeedsAMainActorView() {
        let model = SearchModel(initialState: Search())
        let badge = CountBadge()

        let subscription = model.map(\.results.count).subscribe(view: badge)
        model.write { $0.results = ["Ana", "Bea"] }
        model.write { $0.query = "a" }

        #expect(badge.history == [0, 2])
        subscription.cancel()
    }

    @Test("V1: a model's handler follows a String projection")
    func stringProjectionFeedsAHandler() {
        let source = SearchModel(initialState: Search())
        let follower = SearchModel(initialState: Search())
        let subscription = follower.subscribe(to: source.map(\.query)) { query in
            follower.write { $0.results.append(query) }
        }

        source.write { $0.query = "ana" }
        source.write { $0.results = ["x"] }

        #expect(follower.state.results == ["", "ana"])
        subscription.cancel()
    }
}
