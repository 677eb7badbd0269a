import Foundation
import ScopeKit
import Sobreiro
import SobreiroScopeKit

/// Trees of hazard scopes under a root that steps release while active: routed children that write the routed
/// model as they deactivate, bound models that write, and hooks that make two changes at once.
///
/// Oracles: the process survives the release of any tree (a crash prints the step, see `CrashNote`); after
/// a hook did `b.attach(to: s); b.detach()` or `s.host(b); s.evict(b)`, `b` is not hosted by `s` (S8: a
/// queued change is checked when it runs, not when it is asked for).
@MainActor
final class TreeStage {
    let model = PlainTally(slot: 0)
    var root: RootScope? = RootScope()
    var nodes: [HazardScope?] = [nil, nil, nil, nil]
    weak var weakNodes: HazardScope?
    var problems: [String] = []
    /// Pairs of changes made in hooks during this step: the target must not end hosted by the host.
    private var pairs: [(target: HazardScope, host: Scope, what: String)] = []

    func scope(_ host: Int?) -> Scope? {
        guard let host else { return root }
        return nodes[host]
    }

    func apply(_ hazard: TreeHazard) {
        pairs = []
        switch hazard {
        case .makeNode(let slot, let routes, let binds):
            let node = HazardScope(model: model)
            let model = model
            if routes {
                node.hostChild(following: model.map(\.value)) { value in
                    value % 2 == 0 ? HazardScope(model: model) : nil
                }
            }
            if binds { node.bind(TreeModel(upstream: model)) }
            nodes[slot] = node
        case .host(let slot, let host):
            guard let node = nodes[slot], let scope = scope(host), scope !== node else { return }
            node.attach(to: scope)
        case .detach(let slot):
            _ = nodes[slot]?.detach()
        case .forget(let slot):
            // Taken out first: the node's hooks read `nodes` as it goes, which they cannot while it is assigned.
            let forgotten = nodes[slot]
            nodes[slot] = nil
            withExtendedLifetime(forgotten) {}
        case .releaseRoot:
            let released = root
            root = nil
            withExtendedLifetime(released) {}
            root = RootScope()
        case .write(let value):
            model.write { $0.whole.setValue(value) }
        case .arm(let slot, let hook, let target, let host, let hostThenEvict):
            guard let node = nodes[slot] else { return }
            node.armed[hook] = { [weak self] in self?.pair(target: target, host: host, hostThenEvict: hostThenEvict) }
        }
        for (target, host, what) in pairs where target.host === host {
            problems.append("after \(what) in a hook, the node is still hosted there, \(target.state) (S8)")
        }
    }

    private func pair(target slot: Int, host: Int?, hostThenEvict: Bool) {
        guard let target = nodes[slot], let scope = scope(host), scope !== target, target.host !== scope else { return }
        if hostThenEvict {
            scope.host(target)
            scope.evict(target)
            pairs.append((target, scope, "s.host(b); s.evict(b)"))
        } else {
            target.attach(to: scope)
            _ = target.detach()
            pairs.append((target, scope, "b.attach(to: s); b.detach()"))
        }
    }

    /// Runs the tree seeds; the report of the first that breaks an oracle, or `nil`.
    static func firstFailure() -> String? {
        for seed in HazardRun.seeds(forTrees: ()) {
            var generator = SplitMix64(seed: seed &* 0x9E37_79B9)
            let hazards = (0..<HazardRun.steps).map { _ in TreeHazard.random(using: &generator) }
            let stage = TreeStage()
            for (index, hazard) in hazards.enumerated() {
                let origin = "tree seed \(seed) (replay with SOBREIRO_FUZZ_SEED=\(seed)), step \(index + 1): \(hazard)"
                CrashNote.set(origin)
                write(note: origin)
                if FuzzConfiguration.tracesOperations { print(origin) }
                stage.apply(hazard)
                if let problem = stage.problems.first {
                    return "Hazard run failed: \(origin):\n  \(problem)\nSteps:\n"
                        + hazards.prefix(index + 1).map { "    \($0)," }.joined(separator: "\n")
                }
            }
            CrashNote.set("tree seed \(seed), releasing everything")
            write(
                note: "tree seed \(seed) (replay with SOBREIRO_FUZZ_SEED=\(seed)), releasing everything after its steps"
            )
            // Taken out first, for the same reason as in `forget`.
            let (root, nodes) = (stage.root, stage.nodes)
            stage.root = nil
            stage.nodes = []
            withExtendedLifetime((root, nodes)) {}
        }
        write(note: "")
        return nil
    }

    /// Where the child process of the tree test writes the step under way, for the test process to read.
    nonisolated static func notePath(testProcess: Int32) -> String {
        NSTemporaryDirectory() + "sobreiro-tree-hazard-\(testProcess).txt"
    }

    nonisolated(unsafe) static var noteFile: String?

    /// The note at `path`, read with the C library: Foundation's file readers keep a buffer on Linux that
    /// LeakSanitizer reports as a leak.
    nonisolated static func readNote(at path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while case let count = fread(&chunk, 1, chunk.count, file), count > 0 {
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    nonisolated static func write(note: String) {
        guard let noteFile else { return }
        _ = FileManager.default.createFile(atPath: noteFile, contents: Data(note.utf8))
    }
}

extension HazardRun {
    static func seeds(forTrees: Void) -> [UInt64] {
        if let seed = FuzzConfiguration.integer("SOBREIRO_FUZZ_SEED") { return [seed] }
        return Array(1...max(1, FuzzConfiguration.integer("SOBREIRO_FUZZ_SEEDS") ?? 40))
    }
}
