public import Sobreiro

extension ViewModel {
    /// A main-actor object that follows this model's state and that SwiftUI and UIKit observe field by field
    /// through `Observation`.
    ///
    /// The object renders the current state before this returns, then every committed change, on the main actor:
    /// a write made on the main actor updates it before the write returns, even while another thread is
    /// delivering this model's states, and writes made on other threads reach it in order, coalesced, ending on
    /// the latest state. It holds this model strongly, and this model
    /// holds it weakly: releasing the object ends its subscription, and it counts in `subscriberCount` until
    /// then. Each call makes a new object.
    ///
    /// ```swift
    /// @MainActor
    /// final class SearchScreenModel {
    ///     let search = SearchViewModel()
    ///     lazy var observed = search.observed()  // SwiftUI views read observed.query, observed.results
    /// }
    /// ```
    ///
    /// - Returns: The observed state of this model.
    @MainActor
    public func observed() -> ObservedState<State> {
        // The committed state, never the draft of a transaction running on this thread, which may roll back.
        ObservedState(source: self, initial: committedVersionedState.state) { target, receive in
            subscription(of: target, replacingLive: false, receive: receive)
        }
    }
}

extension StateProjection {
    /// A main-actor object that follows this projection's value and that SwiftUI and UIKit observe through
    /// `Observation`.
    ///
    /// The object gets a new value only when the projected value changes, so the model's other changes never
    /// reach its readers. Delivery and lifetime are as for ``Sobreiro/ViewModel/observed()``: a write made on the
    /// main actor updates it before the write returns, even while another thread delivers; the object holds this
    /// projection, and with it the model.
    ///
    /// ```swift
    /// let header = list.map(\.header).observed()
    /// Text(header.title)
    /// ```
    ///
    /// - Returns: The observed value of this projection.
    @MainActor
    public func observed() -> ObservedState<Value> {
        ObservedState(source: self, initial: currentValue()) { target, receive in
            subscribe(target, distinct: false, receive: receive)
        }
    }
}
