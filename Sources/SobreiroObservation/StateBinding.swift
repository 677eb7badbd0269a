/// A two-way value for an input control: reads come from a model's state, and writes go to the model.
///
/// Make one with ``ObservedState/binding(_:set:)``, which reads a field of the observed state and passes each
/// write to a model method or a transaction that you name. The binding never stores the value: a write changes
/// the model, and the new state comes back to the control through the model's delivery. Written on the main
/// actor, as controls write, it reaches the observed object before the write returns, even while another thread
/// is delivering the model's states, and from a projection's object as from a model's: a text field reads back
/// the value it has just written, and keeps every keystroke.
///
/// SwiftUI's `Binding` is made from it in one line:
///
/// ```swift
/// let query = search.binding(\.query) { searchModel.search(for: $0) }
/// TextField("Search", text: Binding(get: query.get, set: query.set))
/// ```
///
/// UIKit code reads and writes ``value`` from its control's actions.
@MainActor
public struct StateBinding<Value>: Sendable {
    /// Reads the current value; reading it from an observed object registers a dependency on the field.
    public let get: @MainActor @Sendable () -> Value

    /// Hands a new value to the model.
    public let set: @MainActor @Sendable (Value) -> Void

    /// Makes a binding from its two halves.
    ///
    /// ```swift
    /// let isOn = StateBinding(get: { settings.isOn }, set: { settingsModel.setNotifications($0) })
    /// ```
    ///
    /// - Parameters:
    ///   - get: Reads the value, usually from an ``ObservedState``.
    ///   - set: Writes a value through the model: a model method, or a transaction.
    public init(get: @escaping @MainActor @Sendable () -> Value, set: @escaping @MainActor @Sendable (Value) -> Void) {
        self.get = get
        self.set = set
    }

    /// The value: reading calls ``get``, assigning calls ``set``.
    ///
    /// ```swift
    /// @objc func toggleDidChange(_ sender: UISwitch) { isOn.value = sender.isOn }
    /// ```
    public var value: Value {
        get { self.get() }
        nonmutating set { self.set(newValue) }
    }
}

extension ObservedState {
    /// A two-way value for an input control, read from a field of the state and written through the model.
    ///
    /// Reading the binding reads the field as ``subscript(_:)`` does, so its reader is invalidated only when the
    /// field changes. Writing calls `set`, which should change the model; the object itself is never changed
    /// but by the model's delivery.
    ///
    /// ```swift
    /// let query = search.binding(\.query) { searchModel.search(for: $0) }
    /// let isOn = settings.binding(\.notifications) { isOn in settingsModel.write { $0.notifications = isOn } }
    /// ```
    ///
    /// - Parameters:
    ///   - path: The field the control shows.
    ///   - set: Writes a value the control produced through the model: a model method, or a transaction.
    /// - Returns: The binding.
    public func binding<Value: Equatable>(
        _ path: KeyPath<State, Value>,
        set: @escaping @MainActor @Sendable (Value) -> Void
    ) -> StateBinding<Value> {
        StateBinding(get: { self[path] }, set: set)
    }
}
