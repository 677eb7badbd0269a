// Proves: the draft of write { $0 … } cannot be copied, so no copy outlives its closure.
// Checked through SIL: the ownership of a noncopyable value is checked after type checking.
import Sobreiro

struct Count: ViewState {
    var value = 0
}

final class CountModel: ViewModel<Count>, @unchecked Sendable {
    init() { super.init(initialState: Count()) }
}

func copiesTheDraft(_ model: CountModel) {
    // expected-error@+1 {{'draft' is borrowed and cannot be consumed}}
    model.write { draft in
        let copy = draft  // expected-note {{consumed here}}
        copy.value += 1
    }
}
