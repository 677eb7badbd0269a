public import Sobreiro

extension StateSource {
    /// A main-actor object that follows this model's state, or this projection's value, and that SwiftUI and UIKit
    /// observe field by field through `Observation`.
    ///
    /// The object renders the current value before this returns, then every committed change, on the main actor:
    /// a write made on the main actor updates it before the write returns, even while another thread is
    /// delivering the model's states, and writes made on other threads reach it in order, coalesced, ending on
    /// the latest state. Through a projection, it gets a new value only when the projected value changes, so the
    /// model's other changes never reach its readers. It holds this source (and so the model) strongly, and the
    /// model holds it weakly: releasing the object ends its subscription, and it counts in `subscriberCount` until
    /// then. Each call makes a new object.
    ///
    /// ```swift
    /// @MainActor
    /// final class SearchScreenModel {
    ///     let search = SearchViewModel()
    ///     lazy var observed = search.observed()  // SwiftUI views read observed.query, observed.results
    ///     lazy var header = search.map(\.header).observed()
    /// }
    /// ```
    ///
    /// - Returns: The observed value of this source.
    @MainActor
    public final func observed() -> ObservedState<Value> {
        ObservedState(source: self, initial: currentValue) { target, receive in
            subscribe(target, receive: receive)
        }
    }
}
