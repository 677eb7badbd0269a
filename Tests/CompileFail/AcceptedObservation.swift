// Proves: on the main actor, an observed model is read field by field, and a StateBinding becomes a two-way value
// of the shape of SwiftUI's Binding in one line, whichever isolation that initializer's closures declare.
import Observation
import Sobreiro
import SobreiroObservation

struct SearchState: ViewState {
    var query = ""
    var results: [String] = []
}

final class SearchViewModel: ViewModel<SearchState>, @unchecked Sendable {
    init() { super.init(initialState: SearchState()) }

    func search(for query: String) {
        write { $0.query = query }
    }
}

/// The shape of SwiftUI's `Binding.init(get:set:)`, which is Apple-only.
struct PlainBinding<Value> {
    init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {}
}

/// The same initializer as newer SDKs may declare it.
struct IsolatedBinding<Value> {
    init(get: @escaping @isolated(any) @Sendable () -> Value, set: @escaping @isolated(any) @Sendable (Value) -> Void) {
    }
}

@MainActor
func render(_ model: SearchViewModel) {
    let search = model.observed()
    let query = search.binding(\.query) { model.search(for: $0) }
    _ = PlainBinding(get: query.get, set: query.set)
    _ = IsolatedBinding(get: query.get, set: query.set)
    _ = PlainBinding(get: { query.value }, set: { query.value = $0 })
    _ = withObservationTracking {
        (search.query, search.results.count, search[\.results.count], search.state)
    } onChange: {
        print("invalidated")
    }
    let resultCount: ObservedState<Int> = model.map(\.results.count).observed()
    _ = resultCount.state
}
