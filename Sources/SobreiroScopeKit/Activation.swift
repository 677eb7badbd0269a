public import ScopeKit
import Sobreiro
import SobreiroPrimitives
import Synchronization

/// The work of one activation of a bound view model, cancelled when that activation ends.
///
/// ``ScopedViewModel/didBecomeActive(_:)`` receives a new one at each activation. Give it everything the model
/// should do while active: subscriptions and cancellables (`store(in:)`), tasks (``task(_:fileID:line:)``), effects
/// (``effect(_:timing:strategy:run:reduce:fileID:line:)``) and state sequences (``states()``). When the behavior deactivates,
/// all of it ends at once, so closures may capture the model strongly and leave no cycle behind. At the next
/// activation the model starts its work again, and subscriptions resync with the current upstream states.
///
/// ```swift
/// func didBecomeActive(_ activation: Activation<DetailViewModel>) {
///     subscribe(to: list.map(\.selection), onChange: DetailViewModel.selectionDidChange)
///         .store(in: activation)
///     activation.task { await self.refreshPeriodically() }
/// }
/// ```
///
/// Work given to an activation that has ended is cancelled at once and effects refuse to start, so nothing
/// outlives the activation it was started for, even through a kept reference. Debug builds print a warning the
/// first time an effect or a task is refused this way.
@MainActor
public final class Activation<Model: AnyObject & Sendable> {
    /// The model this activation belongs to.
    public let model: Model

    /// Whether the activation is still running: `false` once its behavior deactivated. Safe to read from any
    /// thread, for example in a stored `Task` before it starts a new step.
    public nonisolated var isActive: Bool {
        !ending.hasFired
    }

    /// The first piece of work, held inline: most activations store one or two, and the array costs an
    /// allocation as soon as it holds one.
    private var firstWork: Work?
    /// The work stored after the first, in order.
    private var laterWork: [Work] = []

    /// Finishes what other threads tied to this activation: its state sequences.
    package nonisolated let ending = EndSignal()

    /// The behavior the model is bound to, where its effects read the tree's values; weak, as the behavior outlives the
    /// activations it runs.
    private weak var behavior: Behavior?

    /// The tracking the tree provides for its effects, read at the first effect: `.some(nil)` where it provides
    /// none, as in apps.
    private var tracking: (any EffectTracking)??

    init(model: Model, behavior: Behavior) {
        self.model = model
        self.behavior = behavior
    }

    /// The value of `key` where the model's behavior stands, for the library's own reads, such as an effect's clock.
    func dependency<Key: DependencyKey>(_ key: Key.Type) -> Key.Value {
        guard let behavior else {
            fatalError(
                "\(type(of: model)) started an effect after its behavior was released: start effects in "
                    + "didBecomeActive(_:)")
        }
        return behavior.dependency(key)
    }

    /// An activation released without ending (its tree was released while active) ends now; its cancellables
    /// cancel themselves as they are released.
    deinit {
        ending.fire()
        // Cancellables would cancel themselves as they are released; effects are told.
        firstWork?.end()
        for work in laterWork { work.end() }
    }

    /// Whether work declared at `origin` may start: only while the activation runs. Work refused because the
    /// activation has ended is easy to miss, as every form's `false` is discardable, so debug builds say so once.
    func admitsWork(_ origin: EffectOrigin) -> Bool {
        if isActive { return true }
        workGivenToEndedActivation.emit(
            "\(origin) was given to an activation of \(Model.self) that has ended, so it does not run. Start work "
                + "in didBecomeActive(_:) on the activation it receives; work that starts later checks isActive first."
        )
        return false
    }

    /// The tracker that the work declared at `origin` reports to, if the tree tracks its effects (under test).
    func tracker(for origin: EffectOrigin) -> (any EffectTracker)? {
        if tracking == nil {
            // Whether this process runs tests: until `SobreiroTesting` says so, as in apps, an activation's first effect
            // finds that it has no tracking with one load, not a walk up its tree.
            let isTested = DependencyTesting.isUnderTest.load(ordering: .acquiring)
            let provided = isTested ? behavior?.providedValue(of: EffectTrackingKey.self) ?? nil : nil
            // In a test process, a tree that tracks nothing is most likely a test's tree that forgot to: said when
            // the test waits for these effects.
            if isTested, provided == nil { UntrackedEffects.record(model) }
            tracking = .some(provided)
        }
        return tracking??.tracker(for: model, origin: origin)
    }

    /// Keeps `cancellable` until the activation ends, or cancels it at once if it has ended.
    ///
    /// - Parameter cancellable: The work to tie to this activation.
    public func store(_ cancellable: AnyCancellable) {
        store(.cancellable(cancellable))
    }

    /// Keeps `effect` until the activation ends, or ends it at once if it has ended: held as it is, with no
    /// ``AnyCancellable`` and closure around it.
    func store(_ effect: any ActivationEffect) {
        store(.effect(effect))
    }

    private func store(_ work: Work) {
        guard isActive else {
            work.end()
            return
        }
        if firstWork == nil {
            firstWork = work
        } else {
            laterWork.append(work)
        }
    }

    /// Ends the activation: cancels its work, in the order it was stored, and finishes its state sequences.
    func end() {
        ending.fire()
        let first = firstWork
        let later = laterWork
        firstWork = nil
        laterWork = []
        first?.end()
        for work in later { work.end() }
    }
}

/// Work of an activation that it ends directly rather than through an ``AnyCancellable``.
protocol ActivationEffect: AnyObject, Sendable {
    /// Stops the work; called once, when the activation ends or if it had ended already.
    func end()
}

/// A piece of an activation's work.
private enum Work: Sendable {
    case cancellable(AnyCancellable)
    case effect(any ActivationEffect)

    func end() {
        switch self {
        case .cancellable(let cancellable): cancellable.cancel()
        case .effect(let effect): effect.end()
        }
    }
}

#if canImport(Combine)
    extension Cancellable {
        /// Keeps this cancellable until `activation` ends, or cancels it at once if it has ended.
        ///
        /// ```swift
        /// subscribe(to: session, onChange: ListViewModel.sessionDidChange).store(in: activation)
        /// ```
        ///
        /// Wrapped by Combine's own `AnyCancellable`, which accepts any cancellable, as Combine's subscribers are.
        ///
        /// - Parameter activation: The activation of a bound view model.
        @MainActor
        public func store<Model>(in activation: Activation<Model>) {
            activation.store(AnyCancellable(self))
        }
    }
#else
    extension Cancellable where Self: Sendable {
        /// Keeps this cancellable until `activation` ends, or cancels it at once if it has ended.
        ///
        /// ```swift
        /// subscribe(to: session, onChange: ListViewModel.sessionDidChange).store(in: activation)
        /// ```
        ///
        /// Only a `Sendable` cancellable can be stored: an activation released on another thread cancels its
        /// work there.
        ///
        /// - Parameter activation: The activation of a bound view model.
        @MainActor
        public func store<Model>(in activation: Activation<Model>) {
            activation.store(AnyCancellable(self))
        }
    }
#endif

/// The one-time warning for work given to an activation that has ended.
private let workGivenToEndedActivation = RuntimeWarning()
