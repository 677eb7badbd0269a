import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting

extension World {
    func node(atSlot slot: Int) -> ProbeNode? {
        nodeSlots[slot].flatMap { records[$0]?.node }
    }

    /// The scope a host names, with the ID the reference knows it by.
    func scope(for host: Host) -> (scope: Scope, id: Int)? {
        switch host {
        case .root: root.map { ($0, rootID) }
        case .node(let slot): node(atSlot: slot).map { ($0, $0.id) }
        }
    }

    func applyScopeOperation(_ operation: Operation) {
        switch operation {
        case .makeNode(let slot, let model):
            makeNode(slot, model: model)
        case .attach(let slot, let host):
            guard let node = node(atSlot: slot), let (scope, hostID) = scope(for: host) else { return }
            let result = describe(node.attach(to: scope))
            let expected = reference.requestAttach(node.id, to: hostID)
            if result != expected {
                violation("attach result", "attach n\(node.id) to n\(hostID) returned \(result), expected \(expected)")
            }
        case .host(let slot, let host):
            guard let node = node(atSlot: slot), let (scope, hostID) = scope(for: host) else { return }
            scope.host(node)
            _ = reference.requestAttach(node.id, to: hostID)
        case .detach(let slot):
            guard let node = node(atSlot: slot) else { return }
            let result = describe(node.detach())
            let expected = reference.requestDetach(node.id)
            if result != expected {
                violation("detach result", "detach n\(node.id) returned \(result), expected \(expected)")
            }
        case .evict(let slot, let host):
            guard let node = node(atSlot: slot), let (scope, hostID) = scope(for: host) else { return }
            scope.evict(node)
            reference.requestEvict(node.id, from: hostID)
        case .attachRoot(let slot):
            guard let node = node(atSlot: slot), let root else { return }
            let result = describe(root.attach(to: node))
            let expected = reference.requestAttach(rootID, to: node.id)
            if result != expected {
                violation("attach result", "attaching the root to n\(node.id) returned \(result), expected \(expected)")
            }
        case .arm(let slot, let hook, let action):
            guard let node = node(atSlot: slot) else { return }
            node.armed[hook] = action
            reference.nodes[node.id]?.armed[hook] = action
        case .storeWhileActive(let slot):
            guard let node = node(atSlot: slot), let record = records[node.id] else { return }
            record.work.cancellable().store(in: node.whileActiveReceiver)
            if reference.nodes[node.id]?.state == .active { reference.nodes[node.id]?.extras += 1 }
        case .forgetNode(let slot):
            guard let id = nodeSlots[slot], heldNodes[id] != nil else { return }
            release(heldNodes.removeValue(forKey: id))
            reference.forget(id)
        case .replaceRoot:
            let id = newID()
            mustBeGone.append(Watched(name: "root n\(rootID), replaced", object: root))
            rootID = id
            let old = root
            root = RootScope()
            root?.provide(.testing(clock: TestClock()))
            watch("root n\(id)", root!)
            release(consume old)
            reference.replaceRoot(with: id)
        case .request(let slot, let value):
            guard let id = nodeSlots[slot], let model = records[id]?.model else { return }
            model.write { $0.whole.set(\.request, to: value) }
            reference.nodes[id]?.model?.tally.set(\.request, to: value)
            effects.raise()
        default:
            preconditionFailure("not a scope operation: \(operation)")
        }
        reference.collectDead()
    }

    private func makeNode(_ slot: Int, model: NodeModel) {
        if let old = nodeSlots[slot], heldNodes[old] != nil {
            release(heldNodes.removeValue(forKey: old))
            reference.forget(old)
        }
        let id = newID()
        let work = WorkCounter()
        let modelWork = WorkCounter()
        let node = ProbeNode(id: id, journal: journal, work: work, world: self)
        var scoped: ScopedTally?
        var prediction: Reference.ScopedPrediction?
        if case .bound(let upstream, let strategy) = model {
            let bound = ScopedTally(
                nodeID: id,
                upstream: models[upstream],
                strategy: strategy,
                journal: journal,
                work: modelWork,
                effects: effects
            )
            if node.bind(bound) != .bound { violation("bind", "binding a new model to n\(id) was refused") }
            scoped = bound
            prediction = Reference.ScopedPrediction(
                tally: Tally(slot: 100 + id),
                upstreamSlot: upstream,
                upstreamID: modelIDs[upstream]
            )
            watch("model bound to n\(id)", bound)
        }
        heldNodes[id] = node
        nodeSlots[slot] = id
        records[id] = NodeRecord(node: node, model: scoped, work: work, modelWork: modelWork)
        watch("node \(slot) (n\(id))", node)
        reference.nodes[id] = Reference.Node(model: prediction)
        reference.nodeSlots[slot] = id
    }

    /// Performs a change a node armed, from inside its hook: the library queues it, and checks it when it runs.
    func perform(_ action: HookAction, from id: Int, in hook: Hook) {
        let prefix = "n\(id).\(hook.rawValue): "
        if avoidsKnownIssues, let issue = knownIssue(triggeredBy: action) {
            hookResults.append(prefix + "skipped: " + issue)
            return
        }
        switch action {
        case .attach(let slot, let host):
            guard let node = node(atSlot: slot), let (scope, hostID) = scope(for: host) else {
                hookResults.append(prefix + "attach: nothing")
                return
            }
            let result = node.attach(to: scope)
            if case .queued(let pending) = result { pendings.append(pending) }
            hookResults.append(prefix + "attach n\(node.id) to n\(hostID) → \(describe(result))")
        case .detach(let slot):
            guard let node = node(atSlot: slot) else {
                hookResults.append(prefix + "detach: nothing")
                return
            }
            hookResults.append(prefix + "detach n\(node.id) → \(describe(node.detach()))")
        case .evict(let slot, let host):
            guard let node = node(atSlot: slot), let (scope, hostID) = scope(for: host) else {
                hookResults.append(prefix + "evict: nothing")
                return
            }
            scope.evict(node)
            hookResults.append(prefix + "evict n\(node.id) from n\(hostID)")
        }
    }

    /// The known library issue that `action` would run into, if any (see `KnownIssueTests.swift`); the
    /// reference's `knownIssue(triggeredBy:)` must agree.
    private func knownIssue(triggeredBy action: HookAction) -> String? {
        switch action {
        case .attach(let slot, _):
            // Its host is being deallocated: moving it skips the detach (KnownIssueTests.moveDuringTeardown).
            guard let node = node(atSlot: slot), node.state != .detached, node.host == nil else { return nil }
            return KnownIssue.moveDuringTeardown
        case .detach(let slot), .evict(let slot, _):
            // Only its host owns it: it would die as the queue of changes is cleared, and crash the process if it
            // then hosts a node owned elsewhere (KnownIssueTests.releaseInQueue).
            guard let node = node(atSlot: slot), heldNodes[node.id] == nil else { return nil }
            return KnownIssue.releaseInQueue
        }
    }

    /// Drops the last reference the harness holds to `object`, outside any access to the harness's own
    /// properties: a scope's deinitializer runs hooks, and hooks read those properties.
    func release<Value>(_ value: consuming Value) {
        _ = consume value
    }

    func describe(_ result: AttachmentResult) -> String {
        switch result {
        case .accepted: "accepted"
        case .refused(let error): "refused(\(error))"
        case .queued: "queued"
        }
    }

    func describe(_ result: DetachmentResult) -> String {
        switch result {
        case .detached: "detached"
        case .alreadyDetached: "alreadyDetached"
        case .queued: "queued"
        }
    }
}
