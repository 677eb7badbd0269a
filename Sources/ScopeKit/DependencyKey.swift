import SobreiroPrimitives
package import Synchronization

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

    /// The value read in a test's tree (one that `SobreiroTesting`'s `TestHost` or testing values set up) where no
    /// scope provides one.
    ///
    /// Declare one that fails the test when it is used, so that a test that forgets to provide the value it
    /// relies on fails at once, naming the key, instead of reaching a live service:
    ///
    /// ```swift
    /// enum APIClientKey: DependencyKey {
    ///     static let defaultValue: any APIClient = LiveAPIClient()
    ///     static var testValue: any APIClient { UnimplementedAPIClient() }
    /// }
    ///
    /// struct UnimplementedAPIClient: APIClient {
    ///     func items() async throws -> [Item] { throw APIClientKey.unimplemented() }
    /// }
    /// ```
    ///
    /// Declare `static var testValue: Value { defaultValue }` where the default is as good in a test as in the app,
    /// such as a formatter. Leave it out, and a test whose tree provides no value fails, naming the key, the path
    /// from the root to the model that read it and the fix; the read then falls back to ``defaultValue``, which
    /// ends the process for a key that has none, as any read without a value does.
    static var testValue: Value { get }
}

extension DependencyKey {
    /// No default: a read that finds no provider traps, naming this key and the path from the root to the
    /// reader.
    public static var defaultValue: Value {
        DependencyResolution.missingValue(for: Self.self)
    }

    /// None: the read fails the test, naming this key, the path from the root to the reader and the fix, then
    /// falls back to ``defaultValue``.
    public static var testValue: Value {
        DependencyResolution.unprovidedInTest(Self.self)
    }

    /// Fails the current test, saying that it used `member` of this key's ``testValue``, which the test did not
    /// provide a value for; returns the failure, for a stub to throw.
    ///
    /// ```swift
    /// func items() async throws -> [Item] { throw APIClientKey.unimplemented() }
    /// func cachedCount() -> Int { APIClientKey.unimplemented(); return 0 }
    /// ```
    ///
    /// It reports to the test kit of `SobreiroTesting` once a test has made a host, a clock or a recorder, or set up a
    /// tree with its testing values, as every test that reads a test value has. Elsewhere it fails nothing, and debug
    /// builds print the failure as a warning.
    ///
    /// - Parameters:
    ///   - member: What was used; the calling function's name by default.
    ///   - fileID: Where it was used; leave the default.
    ///   - filePath: Where it was used; leave the default.
    ///   - line: Where it was used; leave the default.
    ///   - column: Where it was used; leave the default.
    /// - Returns: The failure, an `Error`.
    @discardableResult
    public static func unimplemented(
        _ member: String = #function,
        fileID: String = #fileID,
        filePath: String = #filePath,
        line: Int = #line,
        column: Int = #column
    ) -> UnimplementedDependency {
        let failure = UnimplementedDependency(key: "\(Self.self)", member: member)
        DependencyTesting.report(
            "\(failure)", at: SourceSite(fileID: fileID, filePath: filePath, line: line, column: column))
        return failure
    }
}

/// The use of a member of a key's ``DependencyKey/testValue`` that a test did not provide: see
/// ``DependencyKey/unimplemented(_:fileID:filePath:line:column:)``.
public struct UnimplementedDependency: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key whose test value was used.
    public let key: String
    /// What of it was used.
    public let member: String

    /// Says what was used, and how to provide it.
    public var description: String {
        "the test used \(member) of \(key)'s test value: provide the value it needs with TestHost(model, "
            + "dependencies: DependencyValues().with(\(key).self, value)), or in a scope of its tree"
    }
}

/// Where code that reports a test failure was called.
package struct SourceSite: Sendable {
    package let fileID: String
    package let filePath: String
    package let line: Int
    package let column: Int

    package init(fileID: String, filePath: String, line: Int, column: Int) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }
}

/// How dependencies reach a test: `SobreiroTesting` marks a test's tree with ``TestTreeKey`` and installs the
/// reporter of test failures as its first host, clock or recorder is made. Apps install none, and their reads of
/// defaults pay one atomic load for it.
package enum DependencyTesting {
    /// Whether a reporter is installed: this process runs tests.
    package static let isUnderTest = Atomic<Bool>(false)

    private static let reporter = Locked<(@Sendable (String, SourceSite?) -> Void)?>(nil)

    /// Installs `report`, which records a test failure with its message, at a site if there is one, or else at the
    /// current test.
    package static func install(_ report: @escaping @Sendable (String, SourceSite?) -> Void) {
        var replaced: (@Sendable (String, SourceSite?) -> Void)? = report
        reporter.withLock { swap(&$0, &replaced) }
        isUnderTest.store(true, ordering: .releasing)
    }

    /// Records a test failure through the reporter; without one, debug builds print it as a warning.
    static func report(_ message: String, at site: SourceSite?) {
        guard let report = reporter.withLock({ $0 }) else {
            #if DEBUG
                StandardError.writeLine("warning: \(message)")
            #endif
            return
        }
        report(message, site)
    }
}

/// Marks a tree whose reads of keys that no scope provides take their ``DependencyKey/testValue``: `true` in trees
/// that `SobreiroTesting` sets up.
package enum TestTreeKey: DependencyKey {
    package static let defaultValue = false
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
        let path = readerPath
        fatalError(
            "No value for \(Key.self) at \(path): provide one in a scope above it with "
                + "scope.provide(\(Key.self).self, value), or declare a `static let defaultValue` in \(Key.self)."
        )
    }

    /// A read in a test's tree that no scope provides, of a key that declares no test value: fails the test, then
    /// falls back to the key's default.
    static func unprovidedInTest<Key: DependencyKey>(_ key: Key.Type) -> Key.Value {
        DependencyTesting.report(
            "No value for \(Key.self) at \(readerPath) in this test: provide one with TestHost(model, dependencies: "
                + "DependencyValues().with(\(Key.self).self, value)) or in a scope of the test's tree, or declare a "
                + "`static var testValue` in \(Key.self).",
            at: nil
        )
        return Key.defaultValue
    }

    /// The path from the root to the reader, for a message.
    private static var readerPath: String {
        reader.map { reader in MainActor.assumeIsolated { reader.pathFromRoot } } ?? "an unknown node"
    }
}

extension Behavior {
    /// The nodes from the top of this behavior's tree down to it, as a trap names them: each by its type, and by
    /// the type of the model bound to it, if any.
    var pathFromRoot: String {
        var names: [String] = []
        var node: Behavior? = self
        while let current = node {
            let name = String(describing: type(of: current))
            names.append(current.boundModel.map { "\(name)(\(type(of: $0)))" } ?? name)
            node = current.host
        }
        return names.reversed().joined(separator: " → ")
    }
}
