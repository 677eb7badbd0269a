import ScopeKit
import Sobreiro
import SobreiroScopeKit

extension World {
    /// Compares the library with the reference once a step has returned (and its effects settled): the first
    /// broken invariant, if any.
    func check() -> Violation? {
        forgetViewsOfDeadModels()
        reference.settleDerivedFields()
        var found = stepViolations
        checkModels(&found)
        checkViews(&found)
        checkSubscriberCounts(&found)
        checkLiveness(&found)
        checkTree(&found)
        checkHooks(&found)
        checkScopedWork(&found)
        return found.first
    }

    private func checkModels(_ found: inout [Violation]) {
        for slot in 0..<Slots.models {
            let real = models[slot].state
            let expected = reference.models[slot]
            if real.predictable != expected.predictable {
                found.append(Violation(kind: "model state", message: "model \(slot): \(difference(real, expected))"))
            }
        }
        for (id, node) in reference.nodes {
            guard let prediction = node.model, let model = records[id]?.model else { continue }
            let real = model.state
            var expected = prediction.tally
            // Activated and deactivated within the step: the effect may or may not have written back first.
            if node.state != .active, prediction.wasActivatedThisStep, real.response == expected.request * 10 {
                expected.set(\.response, to: real.response)
                reference.nodes[id]?.model?.tally = expected
            }
            if real.predictable != expected.predictable {
                found.append(
                    Violation(kind: "model state", message: "model bound to n\(id): \(difference(real, expected))")
                )
            }
        }
    }

    private func checkViews(_ found: inout [Violation]) {
        for (slot, entry) in views.enumerated() {
            guard let entry else { continue }
            let name = "view \(slot) (v\(entry.id))"
            if let problem = entry.probe.violations.first {
                found.append(Violation(kind: "view render", message: "\(name) \(problem)"))
            }
            if entry.isSubscribed, let model = entry.model, !entry.probe.hasRendered(model.state) {
                found.append(
                    Violation(
                        kind: "view state",
                        message: "\(name) last rendered \(entry.probe.lastDescription()), but its model holds "
                            + "\(model.state)"
                    )
                )
            }
            if let target = entry.probe.echoTarget, let last = entry.probe.lastValue,
                target.state.echoes[entry.id] != last
            {
                found.append(
                    Violation(
                        kind: "echo",
                        message: "\(name) rendered value \(last) and wrote it back from its render, but model "
                            + "\(target.state.slot) holds echo \(String(describing: target.state.echoes[entry.id]))"
                    )
                )
            }
        }
    }

    private func subscribedViews(of model: ViewModel<Tally>) -> Int {
        views.filter { $0?.isSubscribed == true && $0?.model === model }.count
    }

    private func checkSubscriberCounts(_ found: inout [Violation]) {
        for slot in 0..<Slots.models {
            let expected = reference.followerCount(ofModel: slot) + subscribedViews(of: models[slot])
            let real = models[slot].subscriberCount
            if real != expected {
                found.append(
                    Violation(kind: "subscriber count", message: "model \(slot) counts \(real), expected \(expected)")
                )
            }
        }
        for (id, node) in reference.nodes where node.model != nil {
            guard let model = records[id]?.model else { continue }
            // Views, plus the projection that feeds the effect while the model is active.
            let expected = subscribedViews(of: model) + (node.state == .active ? 1 : 0)
            if model.subscriberCount != expected {
                found.append(
                    Violation(
                        kind: "subscriber count",
                        message: "model bound to n\(id) counts \(model.subscriberCount), expected \(expected)"
                    )
                )
            }
        }
    }

    private func checkLiveness(_ found: inout [Violation]) {
        for watched in mustBeGone where watched.object != nil {
            found.append(Violation(kind: "liveness", message: "\(watched.name) is still alive after its release"))
        }
        for (id, record) in records.sorted(by: { $0.key < $1.key }) {
            let isAlive = record.node != nil
            let shouldLive = reference.nodes[id] != nil
            if isAlive != shouldLive {
                found.append(
                    Violation(
                        kind: "liveness",
                        message: "n\(id) is \(isAlive ? "alive" : "gone"), expected \(shouldLive ? "alive" : "gone")"
                    )
                )
            }
            if record.model == nil, reference.nodes[id]?.model != nil {
                found.append(Violation(kind: "liveness", message: "the model bound to n\(id) is gone, its node is not"))
            }
            if !shouldLive, record.model != nil {
                found.append(Violation(kind: "liveness", message: "the model bound to n\(id) outlived its node"))
            }
        }
    }

    /// The ID of the host of `node`, as the reference names it.
    private func hostID(of node: Behavior) -> Int? {
        guard let host = node.host else { return nil }
        if let probe = host as? ProbeNode { return probe.id }
        return host === root ? rootID : -1
    }

    private func checkTree(_ found: inout [Violation]) {
        for (id, expected) in reference.nodes.sorted(by: { $0.key < $1.key }) {
            let real: Scope? = expected.isRoot ? (id == rootID ? root : nil) : records[id]?.node
            guard let real else { continue }
            let name = "n\(id)"
            if real.state != expected.state {
                found.append(Violation(kind: "tree", message: "\(name) is \(real.state), expected \(expected.state)"))
            }
            if !expected.isRoot, hostID(of: real) != reference.liveParent(of: id) {
                found.append(
                    Violation(
                        kind: "tree",
                        message: "\(name) is hosted by \(label(hostID(of: real))), expected "
                            + label(reference.liveParent(of: id))
                    )
                )
            }
            let children = real.children.map { ($0 as? ProbeNode)?.id ?? -1 }
            if children != expected.children {
                found.append(
                    Violation(kind: "tree", message: "\(name) hosts \(children), expected \(expected.children)")
                )
            }
            if real.state == .active, !(real is RootScope), real.host?.state != .active {
                found.append(Violation(kind: "tree", message: "\(name) is active under an inactive host (S3)"))
            }
            for child in real.children where child.host !== real || child.state == .detached {
                found.append(Violation(kind: "tree", message: "a child of \(name) is detached or names another host"))
            }
        }
    }

    private func label(_ id: Int?) -> String {
        id.map { "n\($0)" } ?? "nothing"
    }

    private func checkHooks(_ found: inout [Violation]) {
        let real = journal.take()
        let expected = reference.events
        // Subtrees that die together release each other in an order the contract does not fix.
        let matches = reference.deathsThisStep > 1 ? real.sorted() == expected.sorted() : real == expected
        if !matches {
            found.append(Violation(kind: "hooks", message: "hooks ran as \(real), expected \(expected)"))
        }
        let results = reference.deathsThisStep > 1 ? hookResults.sorted() : hookResults
        let expectedResults = reference.deathsThisStep > 1 ? reference.hookResults.sorted() : reference.hookResults
        if results != expectedResults {
            found.append(
                Violation(
                    kind: "hook results", message: "changes made in hooks gave \(results), expected \(expectedResults)")
            )
        }
        let outcomes = pendings.map(\.outcome)
        if outcomes != reference.pendingOutcomes {
            found.append(
                Violation(
                    kind: "pending outcomes",
                    message: "queued attachments ended \(outcomes), expected \(reference.pendingOutcomes)"
                )
            )
        }
    }

    private func checkScopedWork(_ found: inout [Violation]) {
        for (id, record) in records.sorted(by: { $0.key < $1.key }) {
            let node = reference.nodes[id]
            let isActive = node?.state == .active
            let expectedWork = isActive ? 1 + (node?.extras ?? 0) : 0
            if record.work.live != expectedWork {
                found.append(
                    Violation(
                        kind: "scoped work",
                        message: "n\(id) runs \(record.work.live) cancellable(s), expected \(expectedWork) "
                            + "(\(node.map { "\($0.state)" } ?? "gone"))"
                    )
                )
            }
            let expectedModelWork = isActive && node?.model != nil ? 1 : 0
            if record.modelWork.live != expectedModelWork {
                found.append(
                    Violation(
                        kind: "scoped work",
                        message: "the model bound to n\(id) runs \(record.modelWork.live) activation(s) of work, "
                            + "expected \(expectedModelWork)"
                    )
                )
            }
            if !isActive, record.model?.lastActivation?.isActive == true {
                found.append(
                    Violation(kind: "scoped work", message: "the model bound to n\(id) kept an activation running")
                )
            }
        }
        // Nodes that are gone and checked idle need no more watching.
        records = records.filter { reference.nodes[$0.key] != nil || $0.value.node != nil }
    }

    /// Releases everything the run holds; every object it created must then be gone, and all scoped work
    /// cancelled.
    func finish() -> Violation? {
        views = Array(repeating: nil, count: Slots.views)
        followTokens = []
        var nodes = heldNodes
        heldNodes = [:]
        for id in nodes.keys.sorted() { release(nodes.removeValue(forKey: id)) }
        let lastRoot = root
        root = nil
        release(consume lastRoot)
        models = []
        if let survivor = watched.first(where: { $0.object != nil }) {
            return Violation(kind: "leak", message: "\(survivor.name) outlived the release of everything")
        }
        for (id, record) in records where record.work.live != 0 || record.modelWork.live != 0 {
            return Violation(
                kind: "leak", message: "the scoped work of n\(id) still runs after the release of everything")
        }
        return nil
    }
}

/// The fields in which two states differ, with both values.
func difference(_ real: Tally, _ expected: Tally) -> String {
    let pairs = zip(Mirror(reflecting: real).children, Mirror(reflecting: expected).children)
    let fields = pairs.compactMap { actual, wanted -> String? in
        let actualText = describeField(actual.value)
        let wantedText = describeField(wanted.value)
        guard actualText != wantedText, actual.label != "version", actual.label != "echoes" else { return nil }
        return "\(actual.label ?? "?") is \(actualText), expected \(wantedText)"
    }
    return fields.joined(separator: "; ")
}

/// A field as text; dictionaries sorted by key, so that equal values read the same.
private func describeField(_ value: Any) -> String {
    guard let dictionary = value as? [Int: Int] else { return String(describing: value) }
    return "[" + dictionary.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
}
