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
