import ScopeKit
import Sobreiro
import SobreiroPrimitives

/// The input of an effect that a model starts by intent ("refresh", "upload this file") rather than by a state,
/// and cancelled by name ("cancel the upload").
///
/// The model owns the input, as a property; each activation connects it to an effect with
/// ``EffectTrigger/input(_:)``, and the model's methods call ``send(_:)`` and ``cancel()``. No state flag has to be set to start the work, nor remembered to be reset after it.
///
/// ```swift
/// final class UploadViewModel: ViewModel<UploadState>, ScopedViewModel, @unchecked Sendable {
///     private let upload = EffectInput<Photo>()
///
///     func didBecomeActive(_ activation: Activation<UploadViewModel>) {
///         activation.effect(.input(upload)) { [api] photo in try await api.upload(photo) } reduce: { state, result in
///             state.status = (try? result.get()) != nil ? .done : .failed
///         }
///     }
///
///     func send(_ photo: Photo) {
///         write { $0.status = .uploading }
///         upload.send(photo)
///     }
///
///     func cancelUpload() {
///         upload.cancel()  // nothing the upload returns is written from now on
///         write { $0.status = .cancelled }
///     }
/// }
/// ```
///
/// An input drives one effect at a time. While the model is not active, no effect listens: ``send(_:)`` says so
/// with ``Outcome/inactive`` and runs nothing, and debug builds print a warning the first time, in case the
/// refusal would otherwise pass unnoticed.
public final class EffectInput<Input: Sendable>: Sendable {
    /// What ``EffectInput/send(_:)`` did.
    public enum Outcome: Sendable, Equatable {
        /// The effect received the input: it runs for it now, or when its timing says.
        case delivered
        /// The effect is throttled and its timing ignored the input: nothing runs for it.
        case throttled
        /// No active effect listens to the input, because the model is not active: nothing runs.
        case inactive
    }

    private let connection = Locked<TriggerConnection<Input>?>(nil)
    private let refusal = RuntimeWarning()

    /// Creates an input that no effect listens to yet.
    public init() {}

    /// Starts the effect's work for `input`, from any thread.
    ///
    /// Under ``EffectStrategy/cancelOnNewState`` (the default) it restarts the effect: the run going is cancelled
    /// and writes nothing back. Under ``EffectStrategy/continueOnNewState`` the runs go on side by side.
    ///
    /// - Parameter input: What the effect's operation is given.
    /// - Returns: Whether the effect received it.
    @discardableResult
    public func send(_ input: Input) -> Outcome {
        guard let connection = connection.withLock({ $0 }) else {
            warnOfRefusal()
            return .inactive
        }
        return connection.receive(input) ? .delivered : .throttled
    }

    /// Cancels the effect's runs: once this returns, none of them writes anything back, whichever thread it runs
    /// on. Inputs sent later start new runs.
    ///
    /// The cancel is decided in order with the model's transactions, as the end of an activation is: a write-back
    /// running on another thread either committed before, or writes nothing. It may be called anywhere, inside a
    /// transaction of the model too, such as the effect's own `reduce`.
    ///
    /// A ``send(_:)`` on another thread at the same moment may be cancelled too.
    ///
    /// - Returns: `true` if an active effect listened, and its runs are cancelled; `false` if none did, and nothing
    ///   of it runs anyway.
    @discardableResult
    public func cancel() -> Bool {
        guard let connection = connection.withLock({ $0 }) else { return false }
        connection.cancel()
        return true
    }

    /// Makes `connection` the effect of this input.
    func connect(_ connection: TriggerConnection<Input>) {
        let isFree = self.connection.withLock { current in
            guard current == nil else { return false }
            current = connection
            return true
        }
        if !isFree {
            fatalError(
                "an EffectInput drives one effect at a time, and this one already has an active effect: give each "
                    + "effect an input of its own, and each model instance its own inputs"
            )
        }
    }

    /// Ends `connection`, if it is still the effect of this input.
    func disconnect(_ connection: TriggerConnection<Input>) {
        self.connection.withLock { current in
            if current === connection { current = nil }
        }
    }

    private func warnOfRefusal() {
        refusal.emit(
            "EffectInput<\(Input.self)>.send(_:) ran nothing: no active effect listens to it. "
                + "Connect it with activation.effect(.input(…)) in didBecomeActive, and check the Outcome that send returns "
                + "where the model may be inactive.")
    }
}

/// The effect that an input drives, as the input sees it: its input type only.
final class TriggerConnection<Input: Sendable>: Sendable {
    /// Hands an input to the effect; `false` if its timing ignored it.
    let receive: @Sendable (Input) -> Bool
    /// Cancels the effect's runs, inside a transaction of the model.
    let cancel: @Sendable () -> Void

    init(receive: @escaping @Sendable (Input) -> Bool, cancel: @escaping @Sendable () -> Void) {
        self.receive = receive
        self.cancel = cancel
    }
}

extension EffectInput where Input == Void {
    /// Starts the effect's work: see ``send(_:)``.
    ///
    /// ```swift
    /// func refresh() { refreshing.send() }
    /// ```
    ///
    /// - Returns: Whether the effect received it.
    @discardableResult
    public func send() -> Outcome {
        send(())
    }
}
