/// Something that follows the activations of one behavior from outside it, as `SobreiroScopeKit` does for the
/// view models bound to a behavior.
///
/// A behavior keeps its observers strongly, for as long as it lives.
@usableFromInline
@MainActor
package protocol ActivationObserver: AnyObject {
    /// Called after the behavior's `willActivate(cancellables:)`, in the same activation.
    func behaviorDidActivate()

    /// Called after the behavior's activation cancellables were cancelled, before its `didDeactivate()`; the
    /// observers of one behavior hear it in the reverse order of their activation.
    func behaviorDidDeactivate()

    /// Called after the behavior's `willAttach()`.
    func behaviorDidAttach()

    /// Called after the behavior's `didDetach()`.
    func behaviorDidDetach()
}

extension ActivationObserver {
    /// Does nothing.
    @usableFromInline
    package func behaviorDidAttach() {}

    /// Does nothing.
    @usableFromInline
    package func behaviorDidDetach() {}
}

extension Behavior {
    /// Adds `observer`. If the behavior is active, the observer joins the current activation at once; it may
    /// then be told of that activation again by the change that is activating the behavior, and should ignore
    /// the repeat.
    @usableFromInline
    package func addActivationObserver(_ observer: any ActivationObserver) {
        activationObservers.append(observer)
        if state == .active { observer.behaviorDidActivate() }
    }
}
