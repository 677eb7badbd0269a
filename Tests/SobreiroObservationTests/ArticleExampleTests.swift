import Observation
import Sobreiro
import SobreiroObservation
import Synchronization
import Testing

// The model and the test of the "SwiftUI, UIKit and Combine" article, compiled and run as written there.

struct SearchState: ViewState {
    var query = ""
    var players: [String] = []
    var isSearching = false
}

final class SearchModel: ViewModel<SearchState>, @unchecked Sendable {
    init() { super.init(initialState: SearchState()) }

    func search(for query: String) {
        write { state in
            state.query = query
            state.isSearching = !query.isEmpty
        }
    }
}

@Suite("The SwiftUI, UIKit and Combine article")
@MainActor
struct ArticleExampleTests {
    @Test("O2: typing a query does not invalidate a reader of the list; the binding writes through the model")
    func typingDoesNotRedrawTheList() {
        let model = SearchModel()
        let search = model.observed()
        let invalidations = Atomic(0)
        withObservationTracking {
            _ = search.players
        } onChange: {
            invalidations.add(1, ordering: .relaxed)
        }

        model.search(for: "Ana")

        #expect(invalidations.load(ordering: .relaxed) == 0)
        #expect(search.query == "Ana")

        // The text field's two-way value, as the SwiftUI screen makes it.
        let query = search.binding(\.query) { model.search(for: $0) }
        query.set("Bea")
        #expect(query.get() == "Bea")
        #expect(model.state.isSearching)
    }
}
