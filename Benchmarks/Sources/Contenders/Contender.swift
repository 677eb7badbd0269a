import Synchronization

/// One way to hold an `Int` state and tell renderers about its changes. Every benchmark scenario runs the same
/// code against each contender, so the numbers compare the mechanisms and nothing else.
public protocol Contender: AnyObject, Sendable {
    /// The name shown in benchmark results.
    static var name: String { get }
    /// Whether the scenario can be written correctly with this contender.
    static func supports(_ scenario: Scenario) -> Bool

    init(value: Int)
    /// Commits `value`; renderers hear about it only if it differs from the current value.
    func write(_ value: Int)
    /// Starts rendering into `sink`, which receives the current value at once. Returns what `detach` takes.
    func attach(_ sink: Sink) -> AnyObject
    /// Stops rendering into the sink of `handle`.
    func detach(_ handle: AnyObject)
    /// Makes `next` follow this contender's value.
    func chain(to next: Self) -> AnyObject
}

public enum Scenario: Sendable {
    case write, fanOut, dedup, chain, contended, churn
}

/// A renderer that only counts, safely from any thread.
public final class Sink: Sendable {
    private let renders = Atomic<Int>(0)

    public init() {}

    public var renderCount: Int { renders.load(ordering: .relaxed) }

    @inline(never)
    public func render(_ value: Int) {
        renders.wrappingAdd(1, ordering: .relaxed)
    }
}

/// One way to hold a state of two fields, `value` and `other`, and render either all of it or only `value`.
/// The projection scenarios run the same code against each such contender.
public protocol ProjectingContender: AnyObject, Sendable {
    /// The name shown in benchmark results.
    static var name: String { get }

    init(value: Int, other: Int)
    /// Commits a new `value`, keeping `other`.
    func write(value: Int)
    /// Commits a new `other`, keeping `value`.
    func write(other: Int)
    /// Starts rendering the whole state into `sink` (it receives `value`), at once and on every change.
    func attachWholeState(_ sink: Sink) -> AnyObject
    /// Starts rendering only `value` into `sink`, at once and whenever `value` changes: a write that changes
    /// only `other` does not reach it.
    func attachValue(_ sink: Sink) -> AnyObject
}
