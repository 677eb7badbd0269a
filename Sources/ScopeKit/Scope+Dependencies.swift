import Synchronization

extension Scope {
    /// Provides `value` for `key` to this scope and everything under it.
    ///
    /// The nearest provider wins: a scope further down that provides the same key hides this value from its own
    /// subtree. Readers resolve at each read, so a value provided now is seen by the reads that follow, and a
    /// subtree moved under another scope reads that scope's values from its next attach on.
    ///
    /// ```swift
    /// let app = Scope()
    /// app.provide(APIClientKey.self, LiveAPIClient(baseURL: url))
    /// app.provide(ClockKey.self, ContinuousClock())
    /// root.host(app)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key of the value.
    ///   - value: The value that the behaviors under this scope read.
    public func provide<Key: DependencyKey>(_ key: Key.Type, _ value: Key.Value) {
        provided[key] = value
    }

    /// Provides each of `values` to this scope and everything under it; see ``provide(_:_:)``.
    ///
    /// - Parameter values: The values to provide, by key.
    public func provide(_ values: DependencyValues) {
        provided.merge(values)
    }

    /// Forces `value` for `key` on this scope's whole subtree, over every provider inside it.
    ///
    /// Where ``provide(_:_:)`` yields to a nearer provider, an override does not: the outermost override wins.
    /// Tests use it to replace what features provide for themselves, without touching their initializers:
    ///
    /// ```swift
    /// let root = RootScope()
    /// root.override(APIClientKey.self, StubAPIClient(items: [item]))
    /// root.host(AppScope())  // AppScope provides the live client; its subtree reads the stub
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key of the value.
    ///   - value: The value that every behavior under this scope reads.
    public func override<Key: DependencyKey>(_ key: Key.Type, _ value: Key.Value) {
        overridden[key] = value
    }

    /// Forces each of `values` on this scope's whole subtree; see ``override(_:_:)``.
    ///
    /// - Parameter values: The values to force, by key.
    public func override(_ values: DependencyValues) {
        overridden.merge(values)
    }

    /// Stops providing and overriding `key` here: the reads that follow find the next provider up, or the default.
    ///
    /// - Parameter key: The key whose value this scope gives no more.
    public func withdraw<Key: DependencyKey>(_ key: Key.Type) {
        provided[key] = nil
        overridden[key] = nil
    }
}

extension Behavior {
    /// The value of `key` where this behavior stands in its tree.
    ///
    /// The outermost override above it wins; otherwise the nearest scope that provides the key, starting with this
    /// behavior itself if it is a scope; otherwise the key's default. Read once attached, best in
    /// ``willActivate(cancellables:)``. Each read resolves again, so after a move to another host the
    /// behavior reads its new host's values.
    ///
    /// ```swift
    /// final class Poller: Behavior {
    ///     override func willActivate(cancellables: inout Set<AnyCancellable>) {
    ///         let api = dependency(APIClientKey.self)
    ///         Task { await api.poll() }.store(in: &cancellables)
    ///     }
    /// }
    /// ```
    ///
    /// A read sees the tree as it stands at that moment. ``willAttach()`` runs when this behavior joins its host,
    /// which may itself be detached yet, and does not run again when that host moves: read in
    /// ``willActivate(cancellables:)``, which runs under an active root each time, to see the whole tree. For the
    /// same reason, read while active what deactivation needs, and keep it: a tree released with its root is torn
    /// down without the scopes above.
    ///
    /// Reading from a detached behavior is a programmer error, and so is reading a key that has neither a provider
    /// nor a default: both trap, naming the key and the path from the root.
    ///
    /// - Parameter key: The key of the value.
    /// - Returns: The value that applies to this behavior.
    public func dependency<Key: DependencyKey>(_ key: Key.Type) -> Key.Value {
        guard state != .detached else {
            fatalError(
                "\(type(of: self)) read \(Key.self) while detached: read dependencies once the behavior is "
                    + "attached, in willAttach() or later, not in its initializer."
            )
        }
        if let value = providedValue(of: key) { return value }
        return DependencyResolution.$reader.withValue(self) {
            let isTestTree =
                DependencyTesting.isUnderTest.load(ordering: .acquiring) && providedValue(of: TestTreeKey.self) == true
            return isTestTree ? Key.testValue : Key.defaultValue
        }
    }

    /// The value of `key` that a scope above provides or overrides, or `nil` if none does: no default is read.
    ///
    /// For a library's own keys whose default means "none", read where a default's cost would be paid for nothing.
    package func providedValue<Key: DependencyKey>(of key: Key.Type) -> Key.Value? {
        let identity = ObjectIdentifier(key)
        // The walk remembers where the values are and copies one at the end: most scopes provide nothing, and
        // copying a value out of its `Any` box at each level cost more than the walk itself.
        var nearest: Scope?
        var outermostOverride: Scope?
        var node: Behavior? = self
        while let current = node {
            if let scope = current as? Scope {
                if nearest == nil, scope.provided.holds(identity) { nearest = scope }
                if scope.overridden.holds(identity) { outermostOverride = scope }
            }
            node = current.host
        }
        if let scope = outermostOverride, let value = scope.overridden.storage[identity] { return value as? Key.Value }
        if let scope = nearest, let value = scope.provided.storage[identity] { return value as? Key.Value }
        return nil
    }
}
