/// An object that draws a ``ViewState``, or a value projected from one, whenever its view model commits a new one.
///
/// A view model holds its views weakly: a view that is deallocated is dropped without an unsubscribe call.
/// `render(state:)` is called on the thread of the write that produced the state, never while the model's
/// lock is held, never concurrently with itself, and always in commit order.
///
/// Because `render(state:)` runs on whichever thread writes, a conformance cannot be isolated to an actor:
/// `StatefulView` refines `SendableMetatype`. A `@MainActor` class that conforms to it is rejected with
///
///     error: conformance of 'Label' to protocol 'StatefulView' crosses into main actor-isolated code and can cause data races
///
/// and the isolated conformance `@MainActor StatefulView` that the first fix-it proposes is rejected with
///
///     error: cannot form main actor-isolated conformance of 'Label' to SendableMetatype-inheriting protocol 'StatefulView'
///
/// A renderer that must run on the main actor conforms to ``MainActorStatefulView`` instead; the compiler
/// cannot name it. The other fix-it, `@preconcurrency StatefulView`, compiles but does not remove the
/// problem: the first write made off the main actor renders on its own thread, and Swift's runtime
/// isolation check stops the program there.
///
/// ```swift
/// final class ListPrinter: StatefulView {
///     func render(state: ListState) {
///         print(state)
///     }
/// }
/// ```
public protocol StatefulView: AnyObject, SendableMetatype {
    /// The state this view draws: a model's whole ``ViewState``, or any value a projection of it yields (a
    /// `String`, a count), which need only be `Equatable` and `Sendable`.
    associatedtype State: Equatable & Sendable

    /// Draws `state`. It may read or write any view model, including the one that called it.
    ///
    /// - Parameter state: The state that was just committed.
    func render(state: State)
}

/// An object isolated to the main actor that draws a ``ViewState``, or a value projected from one: a UIKit or AppKit view, or an object
/// that SwiftUI observes.
///
/// Subscribing it (`subscribe(view:)`) from the main actor renders the current state at once.
/// A write made on the main queue renders it before the write returns, even while another thread is delivering
/// the model's states; a write made anywhere else reaches the view asynchronously on the main actor. Several such
/// writes are coalesced, and the view always ends on the latest state. Renders never nest: a state committed while `render` runs, by `render` itself for instance,
/// is rendered right after it returns.
///
/// ```swift
/// @MainActor
/// final class ListController: MainActorStatefulView {
///     func render(state: ListState) { /* update the labels */ }
/// }
/// ```
@MainActor
public protocol MainActorStatefulView: AnyObject {
    /// The state this view draws: a model's whole ``ViewState``, or any value a projection of it yields (a
    /// `String`, a count), which need only be `Equatable` and `Sendable`.
    associatedtype State: Equatable & Sendable

    /// Draws `state` on the main actor.
    ///
    /// - Parameter state: The latest committed state.
    func render(state: State)
}
