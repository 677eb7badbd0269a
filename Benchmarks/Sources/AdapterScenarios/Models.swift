import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Synchronization

// The models and behaviors the adapter benchmarks and `AdapterProbe` share, so that the timed runs and the
// instruction counts measure the same code.
//
// `ScopedViewModel` isolates each of its hooks to the main actor, and Swift infers that isolation for the methods
// that implement them; the rest of a conforming model is not isolated. So `FollowerModel.upstreamDidChange` is a
// plain method, and `subscribe(to:onChange:)` given it picks the overload that delivers on the writer's thread.
// `MainActorFollowerModel` is `@MainActor` as a whole: the same call picks the main-actor overload, which relays the
// states through `MainActorHop`.

/// How many operations started by `EffectModel` and `startOperation` have run. A task runs its body even when it
/// was cancelled before it started, so each one counts once; the benchmarks wait for them after measuring, so
/// that they do not spill into the next measurement.
public let finishedOperations = Atomic<Int>(0)

/// The state of every adapter scenario: `value` is followed and written; effects write back into `result`.
public struct Reading: ViewState {
    public var value: Int
    public var result: Int

    public init(value: Int = 0, result: Int = 0) {
        self.value = value
        self.result = result
    }
}

/// A bound model whose activations do nothing: the fixed cost of a binding.
public final class IdleModel: ViewModel<Reading>, ScopedViewModel, @unchecked Sendable {
    public init() {
        super.init(initialState: Reading())
    }
}

/// A bound model that follows `upstream` while active, through one of its own methods.
public final class FollowerModel: ViewModel<Reading>, ScopedViewModel, @unchecked Sendable {
    public let upstream: ViewModel<Reading>

    public init(upstream: ViewModel<Reading>) {
        self.upstream = upstream
        super.init(initialState: Reading())
    }

    public func didBecomeActive(_ activation: Activation<FollowerModel>) {
        subscribe(to: upstream, onChange: FollowerModel.upstreamDidChange).store(in: activation)
    }

    public func upstreamDidChange(_ upstream: Reading) {
        write { $0.value = upstream.value }
    }
}

/// `FollowerModel` isolated to the main actor as a whole: its subscription goes through the main-actor hop.
@MainActor
public final class MainActorFollowerModel: ViewModel<Reading>, ScopedViewModel, @unchecked Sendable {
    public let upstream: ViewModel<Reading>

    public init(upstream: ViewModel<Reading>) {
        self.upstream = upstream
        super.init(initialState: Reading())
    }

    public func didBecomeActive(_ activation: Activation<MainActorFollowerModel>) {
        subscribe(to: upstream, onChange: MainActorFollowerModel.upstreamDidChange).store(in: activation)
    }

    public func upstreamDidChange(_ upstream: Reading) {
        write { $0.value = upstream.value }
    }
}

/// A bound model whose activation starts one effect that never runs: its predicate matches no state.
public final class IdleEffectModel: ViewModel<Reading>, ScopedViewModel, @unchecked Sendable {
    public init() {
        super.init(initialState: Reading())
    }

    public func didBecomeActive(_ activation: Activation<IdleEffectModel>) {
        activation.effect(.when { _ in false }) { state in
            state.value
        } reduce: { state, result in
            if case .success(let value) = result { state.result = value }
        }
    }
}

/// A bound model whose activation starts one effect on `value`, which starts an operation for the current value
/// at once; deactivation cancels it.
public final class EffectModel: ViewModel<Reading>, ScopedViewModel, @unchecked Sendable {
    public init() {
        super.init(initialState: Reading())
    }

    public func didBecomeActive(_ activation: Activation<EffectModel>) {
        activation.effect(.onChange(of: \.value)) { value in
            finishedOperations.add(1, ordering: .relaxed)
            return value
        } reduce: { state, result in
            if case .success(let value) = result { state.result = value }
        }
    }
}

/// A bound model that renders one view while active, and follows `upstream` as `FollowerModel` does.
public final class ScreenModel: ViewModel<Reading>, ScopedViewModel, @unchecked Sendable {
    public let upstream: ViewModel<Reading>
    public let view: CountingView
    private let startsIdleEffect: Bool

    /// - Parameter startsIdleEffect: Whether each activation also starts an effect that never runs.
    public init(upstream: ViewModel<Reading>, view: CountingView, startsIdleEffect: Bool) {
        self.upstream = upstream
        self.view = view
        self.startsIdleEffect = startsIdleEffect
        super.init(initialState: Reading())
    }

    public func didBecomeActive(_ activation: Activation<ScreenModel>) {
        subscribe(to: upstream, onChange: ScreenModel.upstreamDidChange).store(in: activation)
        subscribe(view: view).store(in: activation)
        guard startsIdleEffect else { return }
        activation.effect(.when { _ in false }) { state in
            state.value
        } reduce: { state, result in
            if case .success(let value) = result { state.result = value }
        }
    }

    public func upstreamDidChange(_ upstream: Reading) {
        write { $0.value = upstream.value }
    }
}

/// A view that only counts its renders, on whatever thread delivers them.
public final class CountingView: StatefulView, Sendable {
    private let renders = Atomic<Int>(0)

    public init() {}

    public var renderCount: Int { renders.load(ordering: .relaxed) }

    public func render(state: Reading) {
        renders.wrappingAdd(1, ordering: .relaxed)
    }
}

/// Starts a task off the main actor that returns `value` at once: the least an effect's operation costs.
public func startOperation(_ value: Int) -> Task<Int, Never> {
    Task {
        finishedOperations.add(1, ordering: .relaxed)
        return value
    }
}

/// The behaviors whose attach + detach cycles the adapter benchmarks time, one per scenario.
public enum CycleScenario: String, CaseIterable, Sendable {
    /// An `AnonymousBehavior` that does nothing: the floor of any cycle.
    case emptyBehavior = "empty-behavior"
    /// The same, next to 1 000 other empty behaviors hosted by the same root.
    case emptyBehaviorAmong1000Siblings = "empty-behavior-among-1000-siblings"
    /// A behavior bound to `IdleModel`.
    case boundIdle = "bound-idle"
    /// A behavior bound to `FollowerModel`: one scoped subscription.
    case boundFollower = "bound-follower"
    /// A behavior bound to `MainActorFollowerModel`: one scoped subscription, relayed to the main actor.
    case boundMainActorFollower = "bound-main-actor-follower"
    /// An `AnonymousBehavior` that makes the same subscription as `FollowerModel` and stores it in its set.
    case plainFollower = "plain-follower"
    /// A behavior bound to `IdleEffectModel`: an effect subscribed, never running.
    case boundIdleEffect = "bound-idle-effect"
    /// The same, while 1 000 other behaviors bound to an `IdleEffectModel` are active in a scope of their own.
    case boundIdleEffectAmong1000 = "bound-idle-effect-among-1000"
    /// A behavior bound to `EffectModel`: an effect that starts an operation and is cancelled.
    case boundEffect = "bound-effect"
    /// An `AnonymousBehavior` that starts a task with `startOperation` and stores its cancellation.
    case plainTask = "plain-task"

    /// Whether each activation starts an operation that counts itself in `finishedOperations`.
    public var startsOperation: Bool {
        self == .boundEffect || self == .plainTask
    }

    /// A detached behavior set up for this scenario; the neighbours a scenario needs are hosted by `root`.
    @MainActor
    public func makeBehavior(neighboursIn root: Scope) -> Behavior {
        let upstream = ViewModel(initialState: Reading(value: 1))
        switch self {
        case .emptyBehavior:
            return AnonymousBehavior { _ in }
        case .emptyBehaviorAmong1000Siblings:
            for _ in 0..<1_000 { root.host(AnonymousBehavior { _ in }) }
            return AnonymousBehavior { _ in }
        case .boundIdle:
            return bound(IdleModel())
        case .boundFollower:
            return bound(FollowerModel(upstream: upstream))
        case .boundMainActorFollower:
            return bound(MainActorFollowerModel(upstream: upstream))
        case .plainFollower:
            let follower = FollowerModel(upstream: upstream)
            return AnonymousBehavior { cancellables in
                follower.subscribe(to: upstream, onChange: FollowerModel.upstreamDidChange)
                    .store(in: &cancellables)
            }
        case .boundIdleEffect:
            return bound(IdleEffectModel())
        case .boundIdleEffectAmong1000:
            // In a scope of their own, so that detaching the measured behavior does not scan them as siblings.
            let neighbours = Scope()
            root.host(neighbours)
            for _ in 0..<1_000 { neighbours.host(bound(IdleEffectModel())) }
            return bound(IdleEffectModel())
        case .boundEffect:
            return bound(EffectModel())
        case .plainTask:
            let model = ViewModel(initialState: Reading())
            return AnonymousBehavior { cancellables in
                startOperation(model.state.value).store(in: &cancellables)
            }
        }
    }

    @MainActor
    private func bound(_ model: some ScopedViewModel) -> Behavior {
        let behavior = AnonymousBehavior { _ in }
        let result = behavior.bind(model)
        precondition(result == .bound, "binding refused: \(result)")
        return behavior
    }
}

/// What a write benchmark writes to: a model with one view subscribed, bound or not.
public enum WriteScenario: String, CaseIterable, Sendable {
    /// A `ScreenModel` bound to an active behavior; its activation subscribed the view.
    case bound = "bound"
    /// The same, with an effect subscribed that never runs.
    case boundIdleEffect = "bound-idle-effect"
    /// A plain `ViewModel` with the view subscribed directly: the floor.
    case unbound = "unbound"
    /// The same with a second view subscribed: what one more subscriber of the model costs a write.
    case unboundTwoViews = "unbound-2-views"

    /// The model to write to, set up and active, and what must stay alive while writing to it.
    @MainActor
    public func makeModel() -> (model: ViewModel<Reading>, view: CountingView, keepAlive: [AnyObject]) {
        let view = CountingView()
        let upstream = ViewModel(initialState: Reading())
        switch self {
        case .bound, .boundIdleEffect:
            let model = ScreenModel(upstream: upstream, view: view, startsIdleEffect: self == .boundIdleEffect)
            let root = RootScope()
            let behavior = AnonymousBehavior { _ in }
            precondition(behavior.bind(model) == .bound)
            root.host(behavior)
            return (model, view, [root, upstream])
        case .unbound:
            let model = ViewModel(initialState: Reading())
            let subscription = model.subscribe(view: view)
            return (model, view, [subscription])
        case .unboundTwoViews:
            let model = ViewModel(initialState: Reading())
            let second = CountingView()
            let subscriptions = [model.subscribe(view: view), model.subscribe(view: second)]
            return (model, view, subscriptions + [second])
        }
    }
}
