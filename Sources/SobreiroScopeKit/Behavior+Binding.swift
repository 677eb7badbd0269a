public import ScopeKit
import Sobreiro
import SobreiroPrimitives

/// What ``ScopeKit/Behavior/bind(_:)`` did.
public enum BindingResult: Equatable, Sendable {
    /// The model is bound to the behavior: it lives and works as the behavior does.
    case bound
    /// Nothing changed, for the reason given.
    case refused(BindingError)
}

/// Why a view model could not be bound to a behavior.
public enum BindingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The model is bound to another behavior that is still alive. A model lives in one place of the tree:
    /// bind a new instance, or move the behavior it is bound to.
    case alreadyBoundToAnotherBehavior

    /// What happened, and how to fix it.
    public var description: String {
        switch self {
        case .alreadyBoundToAnotherBehavior:
            "the view model is already bound to another behavior; a model lives in one place of the tree: bind a "
                + "new instance, or move the behavior it is bound to with attach(to:)"
        }
    }
}

extension Behavior {
    /// Binds `model` to this behavior: the behavior keeps it alive and runs its lifecycle.
    ///
    /// From now on the model lives as long as this behavior: while the behavior is in a tree, the tree keeps both
    /// alive; once it is detached and released, the model and all its scoped work go with it. The model hears
    /// ``ScopedViewModel/didLoad()`` at the first activation, ``ScopedViewModel/didBecomeActive(_:)`` at each
    /// activation, and ``ScopedViewModel/didBecomeInactive()`` at each deactivation. If the behavior is active
    /// already, the model's first activation begins at once.
    ///
    /// ```swift
    /// let screen = Scope()
    /// screen.bind(ListViewModel())
    /// root.host(screen)  // the list model loads and becomes active
    /// ```
    ///
    /// Binding the same model to the same behavior again does nothing.
    ///
    /// A refusal changes nothing and does not trap; debug builds also print a warning to standard error the first
    /// time one happens, naming both behaviors, since a result left unread would hide it.
    ///
    /// - Parameter model: The view model to bind.
    /// - Returns: ``BindingResult/bound``, or ``BindingResult/refused(_:)`` if the model is bound to another
    ///   living behavior; nothing changes then.
    @discardableResult
    public func bind<Model: ScopedViewModel>(_ model: Model) -> BindingResult {
        let identity = ObjectIdentifier(model)
        if let owner = BindingRegistry.owners[identity]?.behavior {
            guard owner !== self else { return .bound }
            BindingRegistry.refusal.emit(
                "bind(_:) refused to bind \(Model.self) to \(type(of: self)): it is already bound to "
                    + "\(type(of: owner)), which is still alive. A model lives in one place of the tree: bind a new "
                    + "instance, or move the behavior it is bound to with attach(to:). Check the BindingResult that "
                    + "bind returns where this may happen.")
            return .refused(.alreadyBoundToAnotherBehavior)
        }
        BindingRegistry.record(self, for: identity)
        boundModel = model
        addActivationObserver(ModelBinding(model: model, behavior: self))
        return .bound
    }
}

/// Which behavior each view model is bound to.
///
/// A binding keeps its model alive for as long as its behavior lives, so an entry whose behavior is alive
/// names a live model, never another object at a reused address.
@MainActor
enum BindingRegistry {
    struct Owner {
        weak var behavior: Behavior?
    }

    static var owners: [ObjectIdentifier: Owner] = [:]
    /// Printed by debug builds the first time a binding is refused.
    static let refusal = RuntimeWarning()
    private static var pruneThreshold = 64

    static func record(_ behavior: Behavior, for model: ObjectIdentifier) {
        owners[model] = Owner(behavior: behavior)
        guard owners.count >= pruneThreshold else { return }
        owners = owners.filter { $0.value.behavior != nil }
        pruneThreshold = max(64, owners.count * 2)
    }
}

/// Runs the lifecycle of one model bound to one behavior.
@MainActor
final class ModelBinding<Model: ScopedViewModel>: ActivationObserver {
    let model: Model
    /// The behavior that holds this binding: weak, as the behavior keeps its observers strongly.
    private weak var behavior: Behavior?
    private var hasLoaded = false
    private var activation: Activation<Model>?

    /// The type of this binding's activations, looked up once: this class's methods run as generic code, which
    /// would look up the metadata of `Activation<Model>` at run time at each activation.
    private let activationType = Activation<Model>.self

    init(model: Model, behavior: Behavior) {
        self.model = model
        self.behavior = behavior
    }

    /// A binding released with its behavior, as when a tree is released while active, ends the activation it ran:
    /// an activation that the model kept must not go on running work for a behavior that is gone.
    isolated deinit {
        activation?.end()
    }

    func behaviorDidActivate() {
        guard activation == nil else { return }
        // Called by the behavior itself, which is alive: the binding is its observer.
        guard let behavior else { return }
        let activation = activationType.init(model: model, behavior: behavior)
        self.activation = activation
        if !hasLoaded {
            hasLoaded = true
            Trace.record(.hook("didLoad"), about: model)
            model.didLoad()
        }
        Trace.record(.hook("didBecomeActive"), about: model)
        model.didBecomeActive(activation)
    }

    func behaviorDidDeactivate() {
        guard let activation else { return }
        self.activation = nil
        activation.end()
        Trace.record(.hook("didBecomeInactive"), about: model)
        model.didBecomeInactive()
    }
}
