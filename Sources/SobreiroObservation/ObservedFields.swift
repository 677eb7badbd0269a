/// The paths of the state that readers of an ``ObservedState`` have read, each with the key that `Observation`
/// tracks it under and a test of whether it changed between two states.
///
/// A path is remembered at its first read and kept: the set is bounded by the distinct key paths that the code
/// reads, usually a handful of property names. A new state is compared only at the remembered paths, so a field
/// that nobody reads costs nothing.
struct ObservedFields<State: Equatable & Sendable> {
    /// The key under which `Observation` tracks a path: a key path of the object itself, one per path.
    typealias Key = KeyPath<ObservedState<State>, Void>

    private struct Field {
        let key: Key
        /// Whether the value at the path differs between two states.
        let hasChanged: (_ old: State, _ new: State) -> Bool
    }

    private var fields: [AnyKeyPath: Field] = [:]

    /// The key of `path`, which is remembered if it was not, and compared with `==` from now on.
    mutating func key<Value: Equatable>(for path: KeyPath<State, Value>) -> Key {
        if let field = fields[path] { return field.key }
        return remember(path) { old, new in old[keyPath: path] != new[keyPath: path] }
    }

    /// The key of `path`, whose values cannot be compared: it counts as changed at every new state.
    mutating func key<Value>(for path: KeyPath<State, Value>) -> Key {
        if let field = fields[path] { return field.key }
        return remember(path) { _, _ in true }
    }

    private mutating func remember(_ path: AnyKeyPath, hasChanged: @escaping (State, State) -> Bool) -> Key {
        let key: Key = \ObservedState<State>.[field: path]
        fields[path] = Field(key: key, hasChanged: hasChanged)
        return key
    }

    /// The remembered paths whose values differ between `old` and `new`, with their keys.
    func changes(from old: State, to new: State) -> [(path: AnyKeyPath, key: Key)] {
        fields.compactMap { path, field in field.hasChanged(old, new) ? (path, field.key) : nil }
    }
}
