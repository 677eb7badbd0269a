// Proves: the draft of write { $0 … } cannot be kept: it lives only as long as its closure.
import Sobreiro

struct Count: ViewState {
    var value = 0
}

final class CountModel: ViewModel<Count>, @unchecked Sendable {
    init() { super.init(initialState: Count()) }
}

func keepsTheDraft(_ model: CountModel) {
    var kept: Any?
    model.write { draft in
        kept = draft  // expected-error {{cannot assign value of type 'Draft<Count>' to type 'Any?'}}
    }
    _ = kept
}
