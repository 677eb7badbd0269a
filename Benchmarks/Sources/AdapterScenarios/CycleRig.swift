import ScopeKit

/// A root and the behavior of a `CycleScenario`, ready for attach + detach cycles: what the adapter and tree
/// benchmarks time and what `AdapterProbe` counts.
///
/// Made with one cycle already run, since the first is set-up: a model's `didLoad`, and the side tables of its
/// first weak references.
@MainActor
public struct CycleRig {
    @usableFromInline
    let root = RootScope()
    @usableFromInline
    let behavior: Behavior

    public init(_ scenario: CycleScenario) {
        behavior = scenario.makeBehavior(neighboursIn: root)
        cycle()
    }

    /// Attaches the behavior to the root and detaches it. Inlinable, so that a timed loop of cycles pays no call
    /// into this module.
    @inlinable
    public func cycle() {
        behavior.attach(to: root)
        behavior.detach()
    }
}
