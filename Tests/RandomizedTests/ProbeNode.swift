import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Synchronization

/// Counts the cancellables it hands out that have not been cancelled yet: the scoped work still running.
final class WorkCounter: Sendable {
    private let running = Atomic<Int>(0)

    var live: Int { running.load(ordering: .acquiring) }

    /// A cancellable that counts as running until it is cancelled (or released, which cancels it).
    func cancellable() -> AnyCancellable {
        running.add(1, ordering: .acquiringAndReleasing)
        return AnyCancellable { [self] in running.subtract(1, ordering: .acquiringAndReleasing) }
    }
}

/// Every hook of every node and bound model, in the order they ran: `n3.willActivate`, `n3.didLoad`, …
@MainActor
final class Journal {
    private(set) var entries: [String] = []

    func record(node: Int, _ hook: String) {
        entries.append("n\(node).\(hook)")
    }

    func take() -> [String] {
        defer { entries = [] }
        return entries
    }
}

/// A scope that journals its hooks, runs one counted cancellable per activation, and performs an armed change
/// of the tree from inside a hook, once.
@MainActor
final class ProbeNode: Scope {
    let id: Int
    let journal: Journal
    let work: WorkCounter
    var armed: [Hook: HookAction] = [:]
    /// Performs armed actions; weak, because a node must never keep the harness alive.
    weak var world: World?

    init(id: Int, journal: Journal, work: WorkCounter, world: World) {
        self.id = id
        self.journal = journal
        self.work = work
        self.world = world
    }

    override func willAttach() { hooked(.willAttach) }
    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        work.cancellable().store(in: &cancellables)
        hooked(.willActivate)
    }
    override func willDeactivate() { hooked(.willDeactivate) }
    override func didDeactivate() { hooked(.didDeactivate) }
    override func willDetach() { hooked(.willDetach) }
    override func didDetach() { hooked(.didDetach) }

    private func hooked(_ hook: Hook) {
        journal.record(node: id, hook.rawValue)
        guard let action = armed.removeValue(forKey: hook) else { return }
        world?.perform(action, from: id, in: hook)
    }
}

/// Set when an effect may have started, so the harness knows it must let effects settle before it checks.
final class EffectsFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .releasing) }

    /// Whether the flag was raised since the last call.
    func lower() -> Bool { raised.exchange(false, ordering: .acquiringAndReleasing) }
}

/// A view model bound to a node: while active it follows its upstream model, runs an effect that answers each
/// request with `request * 10`, and counts its scoped work.
final class ScopedTally: ViewModel<Tally>, ScopedViewModel, @unchecked Sendable {
    let nodeID: Int
    weak let upstream: PlainTally?
    let strategy: EffectStrategy
    let journal: Journal
    let work: WorkCounter
    let effects: EffectsFlag
    @MainActor private(set) weak var lastActivation: Activation<ScopedTally>?
    @MainActor private(set) var activations = 0

    @MainActor
    init(
        nodeID: Int,
        upstream: PlainTally?,
        strategy: EffectStrategy,
        journal: Journal,
        work: WorkCounter,
        effects: EffectsFlag
    ) {
        self.nodeID = nodeID
        self.upstream = upstream
        self.strategy = strategy
        self.journal = journal
        self.work = work
        self.effects = effects
        super.init(initialState: Tally(slot: 100 + nodeID))
    }

    func didLoad() {
        journal.record(node: nodeID, "didLoad")
    }

    func didBecomeActive(_ activation: Activation<ScopedTally>) {
        journal.record(node: nodeID, "didBecomeActive")
        lastActivation = activation
        activations += 1
        work.cancellable().store(in: activation)
        if let upstream {
            subscribe(to: upstream, onChange: ScopedTally.upstreamDidChange).store(in: activation)
        }
        effects.raise()
        activation.effect(.onChange(of: \.request), strategy: strategy) { request in
            request * 10
        } reduce: { state, result in
            switch result {
            case .success(let response): state.set(\.response, to: response)
            }
        }
    }

    func didBecomeInactive() {
        journal.record(node: nodeID, "didBecomeInactive")
    }

    func upstreamDidChange(_ upstream: Tally) {
        write { state.set(\.mirrors, upstream.slot, to: upstream.value) }
    }
}
