/// Keeps cancellables for as long as one behavior stays active.
///
/// Get one from ``Behavior/whileActiveReceiver``. A cancellable stored while the behavior is active is
/// cancelled when the behavior deactivates; one stored while it is not active (or after it is gone) is
/// cancelled at once, so work can never outlive the activation it belongs to.
///
/// ```swift
/// Task { await poll() }.store(in: scope.whileActiveReceiver)
/// ```
@MainActor
public struct WhileActiveReceiver {
    private weak var behavior: Behavior?

    init(behavior: Behavior) {
        self.behavior = behavior
    }

    /// Keeps `cancellable` until the behavior deactivates, or cancels it at once if the behavior is not active.
    ///
    /// - Parameter cancellable: The work to tie to the current activation.
    public func store(_ cancellable: AnyCancellable) {
        guard let behavior, behavior.state == .active else {
            cancellable.cancel()
            return
        }
        behavior.activationCancellables.insert(cancellable)
    }
}

#if canImport(Combine)
    extension Cancellable {
        /// Keeps this cancellable until `receiver`'s behavior deactivates, or cancels it at once if the behavior
        /// is not active.
        ///
        /// Wrapped by Combine's own `AnyCancellable`, which accepts any cancellable, as Combine's subscribers are.
        ///
        /// - Parameter receiver: The receiver of a behavior, such as ``Behavior/whileActiveReceiver``.
        @MainActor
        public func store(in receiver: WhileActiveReceiver) {
            receiver.store(AnyCancellable(self))
        }
    }
#else
    extension Cancellable where Self: Sendable {
        /// Keeps this cancellable until `receiver`'s behavior deactivates, or cancels it at once if the behavior
        /// is not active.
        ///
        /// Only a `Sendable` cancellable can be stored: a behavior released on another thread cancels its work
        /// there.
        ///
        /// - Parameter receiver: The receiver of a behavior, such as ``Behavior/whileActiveReceiver``.
        @MainActor
        public func store(in receiver: WhileActiveReceiver) {
            receiver.store(AnyCancellable(self))
        }
    }
#endif

extension AnyCancellable {
    /// Keeps this cancellable until `receiver`'s behavior deactivates, or cancels it at once if the behavior is
    /// not active.
    ///
    /// - Parameter receiver: The receiver of a behavior, such as ``Behavior/whileActiveReceiver``.
    @MainActor
    public func store(in receiver: WhileActiveReceiver) {
        receiver.store(self)
    }
}
