public import ScopeKit

/// How a screen dismisses itself: what shows it provides this action to the screen's subtree, under
/// ``DismissKey``, and the screen's model reads it and calls it.
///
/// ```swift
/// // Where a stack hosts one screen per element of its path:
/// stack.hostChildren(following: navigation.map(\.path)) { destination in
///     let screen = RecordMeetingScope()
///     screen.provide(DismissKey.self, Dismiss { navigation.write { $0.path.removeAll { $0.id == destination.id } } })
///     return screen
/// }
///
/// // In the screen's model:
/// func endMeeting() {
///     meetings.save(transcript)
///     dependency(DismissKey.self)()
/// }
/// ```
///
/// Dismissing is a write to the state that shows the screen, so the route that follows that state evicts the
/// screen, which ends its model's work. `SobreiroTesting`'s `TestHost` provides one that detaches the model's
/// behavior and counts the dismissals, so a screen that dismisses itself ends cleanly in a test too.
public struct Dismiss: Sendable {
    private let action: @MainActor @Sendable () -> Void

    /// Creates a dismissal that runs `action`.
    ///
    /// - Parameter action: Removes the screen from the state that shows it; it runs on the main actor.
    public init(_ action: @escaping @MainActor @Sendable () -> Void) {
        self.action = action
    }

    /// Dismisses the screen.
    @MainActor public func callAsFunction() {
        action()
    }
}

/// The key of the ``Dismiss`` that the scope showing a screen provides to it. It has no default: a screen that
/// dismisses itself where nothing can dismiss it traps, naming the key and the path to it. In a test's tree that
/// provides none, the dismissal fails the test instead, naming the key.
public enum DismissKey: DependencyKey {
    /// What the key names: the dismissal of the screen that reads it.
    public typealias Value = Dismiss

    /// A dismissal that fails the test: nothing in the test's tree shows the screen that dismissed itself.
    public static var testValue: Dismiss {
        Dismiss { DismissKey.unimplemented("Dismiss") }
    }
}
