public import Sobreiro

/// Subscribes an effect's runner, the target, to the model with `receive`, and returns the subscription.
///
/// The public effect forms are inlinable only to make this closure where the caller's state type is concrete: the
/// subscription's code (the change of the subscriber list, the first render) is then compiled for that type. Made
/// inside the library's generic code instead, it looks up the metadata of the state's generic types (optionals,
/// tuples, the subscription record) at run time, several times per subscription, which costs more than the rest
/// of an effect's start.
@usableFromInline
typealias EffectSubscribe<State: ViewState> = (
    _ model: ViewModel<State>,
    _ runner: AnyObject,
    _ receive: @escaping @Sendable (AnyObject, State, _ version: UInt64, CallNotice) -> Void
) -> StateSubscription

extension ViewModel {
    /// The ``EffectSubscribe`` of this model's state type: compiled for the concrete state in the inlinable
    /// code that names it, with no context to allocate.
    @inlinable
    static var effectSubscribe: EffectSubscribe<State> {
        { model, runner, receive in model.subscription(of: runner, replacingLive: false, receive) }
    }
}
