public import Observation
import Sobreiro
import SobreiroPrimitives

/// A main-actor object that follows a view model's state, or a projection's value, and that SwiftUI and UIKit
/// observe through `Observation`, field by field.
///
/// Make one with ``Sobreiro/StateSource/observed()``, of a model or of a projection. It is a renderer of
/// the model on the main actor, like any `MainActorStatefulView`: a write made on the main actor reaches it before
/// the write returns, even while another thread is delivering the model's states; writes made on other threads
/// reach it in commit order, a burst of them costs one update, and it always ends on the model's latest state. It holds the
/// model strongly; the model holds it weakly, so releasing it ends its subscription.
///
/// Read the fields of the state as its own properties. Each read tells `Observation` which field the reader
/// depends on, and a new state invalidates only the readers of the fields that changed (`==`):
///
/// ```swift
/// struct SearchScreen: View {
///     let search: ObservedState<SearchState>  // from searchModel.observed()
///
///     var body: some View {
///         Text(search.title)                  // not invalidated when only `results` changes
///         Text("\(search.results.count) results")
///     }
/// }
/// ```
///
/// A read through a chain of properties (`search.header.title`) depends on its first field (`header`), and so
/// does a read through an optional (`search.selection?.name`). To depend on a nested value alone, read it with
/// a key path: `search[\.results.count]` invalidates its reader only when the count changes. A field whose type
/// is not `Equatable` invalidates its readers at every new state. ``state`` reads the whole state, and its
/// readers are invalidated at every new state.
///
/// The object never sets its own state: ``binding(_:set:)`` gives input controls a value whose writes go to the
/// model, and come back through the model's delivery before the write returns.
///
/// UIKit code reads it where UIKit tracks `Observation` itself (`layoutSubviews()`, `updateProperties()` on the
/// systems that support it) or inside `withObservationTracking`. A controller that redraws every field from each
/// state can conform to `MainActorStatefulView` and subscribe instead, with no object in between.
///
/// Reading it is confined to the main actor by the compiler, so `Observation` never sees a race.
@MainActor
@dynamicMemberLookup
public final class ObservedState<State: Equatable & Sendable>: Observable {
    /// The last state handed over by the subscription.
    private var current: State
    private var fields = ObservedFields<State>()
    private let registrar = ObservationRegistrar()
    /// The model or projection followed, held strongly so that the object alone keeps it alive. The model holds
    /// the object weakly, through the subscription, which therefore ends with the object.
    private let source: AnyObject
    /// The key under which `Observation` tracks ``state``. Made once: a key path literal in generic code is
    /// instantiated again at each use, which costs a lookup of its type by name.
    private let stateKey: KeyPath<ObservedState<State>, State> = \.state

    /// Follows `source` from `initial`, its committed state or value; `subscribe` makes the subscription with the
    /// hop's `receive`.
    init(
        source: AnyObject,
        initial: State,
        subscribe: (_ target: AnyObject, _ receive: @escaping @Sendable (AnyObject, State) -> Void)
            -> StateSubscription
    ) {
        self.source = source
        self.current = initial
        // The token is not kept: the subscription lasts as long as this object, which the model holds weakly.
        _ = MainActorStateHop.connect(
            self,
            render: { unsafeDowncast($0, to: ObservedState<State>.self).render($1) },
            subscribe: { receive in subscribe(self, receive) }
        )
    }

    /// The whole state. A reader depends on all of it, and is invalidated by every new state.
    ///
    /// This property hides a field of the state that is also named `state`; read such a field with
    /// `self[\.state]`.
    ///
    /// ```swift
    /// if search.state == .empty { EmptyView() }
    /// ```
    public var state: State {
        registrar.access(self, keyPath: stateKey)
        return current
    }

    /// A field of the state, read as a property of this object: `search.title`. Its reader is invalidated only
    /// when the field changes (`==`).
    ///
    /// ```swift
    /// Text(search.title)
    /// ```
    ///
    /// - Parameter path: The field, named by the property's name.
    public subscript<Field: Equatable>(dynamicMember path: KeyPath<State, Field>) -> Field {
        self[path]
    }

    /// A field of the state whose type is not `Equatable`, read as a property of this object. Since a change of
    /// it cannot be told, its reader is invalidated by every new state.
    ///
    /// - Parameter path: The field, named by the property's name.
    public subscript<Field>(dynamicMember path: KeyPath<State, Field>) -> Field {
        registrar.access(self, keyPath: fields.key(for: path))
        return current[keyPath: path]
    }

    /// A value at any depth of the state, whose reader is invalidated only when that value changes (`==`).
    ///
    /// Use it where a chain of properties would depend on more than it needs:
    ///
    /// ```swift
    /// Text("\(search[\.results.count]) results")  // not invalidated when a result changes but not the count
    /// ```
    ///
    /// - Parameter path: A key path from the state to the value.
    public subscript<Value: Equatable>(path: KeyPath<State, Value>) -> Value {
        registrar.access(self, keyPath: fields.key(for: path))
        return current[keyPath: path]
    }

    /// Takes a new state from the subscription, on the main actor, and tells `Observation` which of the read fields
    /// changed.
    private func render(_ new: State) {
        guard new != current else { return }
        let changed = fields.changes(from: current, to: new)
        Trace.record(.invalidated(fields: changed.map { String(describing: $0.path) }.sorted()), about: self)
        registrar.willSet(self, keyPath: stateKey)
        for change in changed { registrar.willSet(self, keyPath: change.key) }
        current = new
        for change in changed { registrar.didSet(self, keyPath: change.key) }
        registrar.didSet(self, keyPath: stateKey)
    }

    /// The key under which `Observation` tracks one remembered path; never read for a value.
    nonisolated subscript(field path: AnyKeyPath) -> Void {
        ()
    }
}
