// Proves: a handler closure cannot call into an actor synchronously; it runs on the delivering thread.
import Sobreiro

struct CartState: ViewState {
    var itemCount = 0
}

struct CheckoutState: ViewState {
    var ready = false
}

final class CartViewModel: ViewModel<CartState>, @unchecked Sendable {
    init() { super.init(initialState: CartState()) }
}

actor AnalyticsStore {
    private var cartSizes: [Int] = []

    // expected-note@+1 {{instance method 'record' from outside of its actor context are implicitly asynchronous}}
    func record(_ cartSize: Int) { cartSizes.append(cartSize) }
}

final class CheckoutViewModel: ViewModel<CheckoutState>, @unchecked Sendable {
    let store: AnalyticsStore

    init(cart: CartViewModel, store: AnalyticsStore) {
        self.store = store
        super.init(initialState: CheckoutState())
        // expected-error@+1 {{call to actor-isolated instance method 'record' in a synchronous nonisolated context}}
        subscribe(to: cart) { [store] cart in store.record(cart.itemCount) }
    }
}
