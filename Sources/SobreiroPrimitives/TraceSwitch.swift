public import Synchronization

/// Whether a trace handler is installed: the one switch that every module's hot path reads before it builds an
/// event, so that tracing costs one relaxed load while it is off.
///
/// `SobreiroTrace` turns it on and off as a handler comes and goes; the other modules only read it, and reach
/// `SobreiroTrace` only when it is on. It is an object rather than a global flag: code of another module reaches a
/// global through an accessor call, while an object that keeps a reference to the switch (every view model does)
/// reads it in two loads, on paths that run on every write.
@usableFromInline
package final class TraceSwitch: Sendable {
    /// The switch of the process.
    @usableFromInline
    package static let shared = TraceSwitch()

    @usableFromInline
    let state = Atomic<Bool>(false)

    private init() {}

    /// Whether a handler is installed.
    @inlinable
    package var isOn: Bool {
        state.load(ordering: .relaxed)
    }

    /// Turns the switch on or off; only `SobreiroTrace` does, around installing and removing its handler.
    package func set(_ isOn: Bool) {
        state.store(isOn, ordering: .releasing)
    }
}
