/// The name of a value that scopes provide to the behaviors under them: a service, a clock, configuration.
///
/// Declare a key once, with the type of its value and, where one makes sense, the value used when no scope above
/// the reader provides one:
///
/// ```swift
/// enum APIClientKey: DependencyKey {
///     static let defaultValue: any APIClient = LiveAPIClient()
/// }
/// ```
///
/// A key with no sensible default names its type instead. Reading it where no scope provides it is a programmer
/// error, which traps with the key and the path of nodes from the root to the reader:
///
/// ```swift
/// enum SessionKey: DependencyKey {
///     typealias Value = Session
/// }
/// ```
///
/// Declare the default with `static let`, so that every reader shares one instance; a `static var` builds a new
/// value at each read that falls back to it. See <doc:ProvidingDependencies> for how reads resolve and how tests
/// override values.
public protocol DependencyKey {
    /// The type of the value this key names.
    associatedtype Value

    /// The value read where no scope above the reader provides one.
    ///
    /// Leave it out when no value makes sense by default: a read that finds no provider then traps.
    static var defaultValue: Value { get }
}

extension DependencyKey {
    /// No default: a read that finds no provider traps, naming this key and the path from the root to the
    /// reader.
    public static var defaultValue: Value {
        DependencyResolution.missingValue(for: Self.self)
    }
}

/// A set of values by key, for providing or overriding several at once.
///
/// ```swift
/// var fakes = DependencyValues()
/// fakes[APIClientKey.self] = StubAPIClient(items: [])
/// fakes[ClockKey.self] = TestClock()
/// root.override(fakes)
/// ```
public struct DependencyValues {
    /// The values by the identity of their key's type.
    var storage: [ObjectIdentifier: Any] = [:]

    /// Creates an empty set.
    public init() {}

    /// The value for `key`, or `nil` if this set has none; setting `nil` removes it.
    ///
    /// - Parameter key: The key of the value.
    public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value? {
        get { storage[ObjectIdentifier(key)].map { $0 as! Key.Value } }
        set { storage[ObjectIdentifier(key)] = newValue.map { $0 as Any } }
    }

    /// This set with `value` for `key`, for building a set in one expression.
    ///
    /// ```swift
    /// let host = TestHost(model, dependencies: DependencyValues().with(APIClientKey.self, stub))
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key of the value.
    ///   - value: The value.
    /// - Returns: A copy of this set that holds `value` for `key`.
    public func with<Key: DependencyKey>(_ key: Key.Type, _ value: Key.Value) -> DependencyValues {
        var copy = self
        copy[key] = value
        return copy
    }

    /// Whether this set holds no value.
    public var isEmpty: Bool {
        storage.isEmpty
    }

    /// Whether this set holds a value for the key of this identity, without copying the value out.
    func holds(_ identity: ObjectIdentifier) -> Bool {
        !storage.isEmpty && storage.index(forKey: identity) != nil
    }

    /// Adds the values of `other`, replacing those of the same keys.
    mutating func merge(_ other: DependencyValues) {
        storage.merge(other.storage) { _, new in new }
    }
}

/// How a read that finds no value reports it.
enum DependencyResolution {
    /// The behavior whose read is falling back to its key's default, so that a key with no default can name the
    /// path to it when it traps.
    @TaskLocal static var reader: Behavior?

    static func missingValue<Key: DependencyKey>(for key: Key.Type) -> Never {
        let path = reader.map { reader in MainActor.assumeIsolated { reader.pathFromRoot } } ?? "an unknown node"
        fatalError(
            "No value for \(Key.self) at \(path): provide one in a scope above it with "
                + "scope.provide(\(Key.self).self, value), or declare a `static let defaultValue` in \(Key.self)."
        )
    }
}

extension Behavior {
    /// The types of the nodes from the top of this behavior's tree down to it, as a trap names them.
    var pathFromRoot: String {
        var names: [String] = []
        var node: Behavior? = self
        while let current = node {
            names.append(String(describing: type(of: current)))
            node = current.host
        }
        return names.reversed().joined(separator: " → ")
    }
}
