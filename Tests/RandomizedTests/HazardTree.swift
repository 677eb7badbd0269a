import ScopeKit
import Sobreiro
import SobreiroScopeKit

/// A step of a tree hazard run: trees released while active, with routes, bound models and hooks that write
/// or make two changes of the tree at once.
enum TreeHazard: Equatable, Sendable, CustomStringConvertible {
    case makeNode(slot: Int, routes: Bool, binds: Bool)
    case host(slot: Int, in: Int?)
    case detach(slot: Int)
    case forget(slot: Int)
    case releaseRoot
    case write(value: Int)
    /// From `hook` of `slot`: `target.attach(to: host); target.detach()`, or with `hostThenEvict`,
    /// `host.host(target); host.evict(target)`.
    case arm(slot: Int, hook: Hook, target: Int, host: Int?, hostThenEvict: Bool)

    static func random(using g: inout SplitMix64) -> TreeHazard {
        let slot = g.below(4)
        let other = g.below(4)
        let host: Int? = g.chance(50) ? nil : g.below(4)
        let flag = g.chance(50)
        switch g.weightedIndex([4, 6, 2, 3, 2, 5, 4]) {
        case 0: return .makeNode(slot: slot, routes: flag, binds: g.chance(50))
        case 1: return .host(slot: slot, in: host)
        case 2: return .detach(slot: slot)
        case 3: return .forget(slot: slot)
        case 4: return .releaseRoot
        case 5: return .write(value: g.below(6))
        default:
            let hook = [Hook.willActivate, .willDeactivate, .didDeactivate, .willAttach][g.below(4)]
            return .arm(slot: slot, hook: hook, target: other, host: host, hostThenEvict: flag)
        }
    }

    var description: String {
        switch self {
        case .makeNode(let s, let r, let b): ".makeNode(slot: \(s), routes: \(r), binds: \(b))"
        case .host(let s, let h): ".host(slot: \(s), in: \(h.map(String.init) ?? "nil"))"
        case .detach(let s): ".detach(slot: \(s))"
        case .forget(let s): ".forget(slot: \(s))"
        case .releaseRoot: ".releaseRoot"
        case .write(let v): ".write(value: \(v))"
        case .arm(let s, let hook, let t, let h, let e):
            ".arm(slot: \(s), hook: .\(hook.rawValue), target: \(t), host: \(h.map(String.init) ?? "nil"), "
                + "hostThenEvict: \(e))"
        }
    }
}

/// A scope that writes the routed model as it deactivates, and performs an armed pair of changes, once.
@MainActor
final class HazardScope: Scope {
    weak let model: PlainTally?
    var armed: [Hook: () -> Void] = [:]

    init(model: PlainTally?) {
        self.model = model
    }

    override func willAttach() { fire(.willAttach) }
    override func willActivate(cancellables: inout Set<AnyCancellable>) { fire(.willActivate) }
    override func willDeactivate() {
        model?.write { $0.whole.setValue($0.value + 1) }
        fire(.willDeactivate)
    }
    override func didDeactivate() { fire(.didDeactivate) }

    private func fire(_ hook: Hook) {
        armed.removeValue(forKey: hook)?()
    }
}

/// A bound model that follows the routed model and writes it back while active.
final class TreeModel: ViewModel<Tally>, ScopedViewModel, @unchecked Sendable {
    weak let upstream: PlainTally?

    init(upstream: PlainTally) {
        self.upstream = upstream
        super.init(initialState: Tally(slot: 9))
    }

    func didBecomeActive(_ activation: Activation<TreeModel>) {
        guard let upstream else { return }
        subscribe(to: upstream) { [weak self] state in self?.write { $0.whole.setValue(state.value) } }
            .store(in: activation)
    }

    func didBecomeInactive() {
        upstream?.write { $0.count += 1 }
    }
}
