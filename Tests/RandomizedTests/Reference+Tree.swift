import ScopeKit

// The scope tree as the contract describes it (S1–S8): changes apply one at a time, a change requested from a
// hook waits in a queue until the current one completes, activation runs parent first and siblings in order,
// deactivation children first and siblings in reverse, and a node kept alive elsewhere ends detached when its
// host goes away. Hooks, and the results of the changes armed in them, are written down for comparison.

extension Reference {
    func resolve(node slot: Int) -> Int? {
        guard let id = nodeSlots[slot], nodes[id] != nil else { return nil }
        return id
    }

    func resolve(_ host: Host) -> Int? {
        switch host {
        case .root: nodes[rootID] != nil ? rootID : nil
        case .node(let slot): resolve(node: slot)
        }
    }

    func attachmentError(_ id: Int, to host: Int) -> AttachmentError? {
        if nodes[id]?.isRoot == true { return .rootScopeCannotBeAttached }
        var ancestor: Int? = host
        while let node = ancestor {
            if node == id { return node == host ? .cannotAttachToItself : .cannotAttachToDescendant }
            ancestor = nodes[node]?.parent
        }
        return nil
    }

    /// The host of `id`, if it is still alive: a host that died is no host.
    func liveParent(of id: Int) -> Int? {
        guard let parent = nodes[id]?.parent, nodes[parent] != nil else { return nil }
        return parent
    }

    /// Whether `id` belongs to a host: one whose host died is still attached, maybe active, until it is orphaned,
    /// and a detach in between makes it leave (S7, S8).
    func isHosted(_ id: Int) -> Bool {
        guard let node = nodes[id] else { return false }
        return liveParent(of: id) != nil || (node.state != .detached && !node.isRoot)
    }

    // MARK: Requests, from outside the tree or from inside a hook

    // A request made from a hook is queued as it is, and checked only when it runs (S8).

    mutating func requestAttach(_ id: Int, to host: Int) -> String {
        guard isApplying else {
            if let error = attachmentError(id, to: host) { return "refused(\(error))" }
            perform(.attach(id, to: host, pending: nil))
            return "accepted"
        }
        pendingOutcomes.append(.pending)
        perform(.attach(id, to: host, pending: pendingOutcomes.count - 1))
        return "queued"
    }

    mutating func requestDetach(_ id: Int) -> String {
        guard isApplying else {
            guard isHosted(id) else { return "alreadyDetached" }
            perform(.detach(id))
            return "detached"
        }
        perform(.detach(id))
        return "queued"
    }

    mutating func requestEvict(_ id: Int, from host: Int) {
        perform(.evict(id, from: host))
    }

    /// The harness lets go of `id`: it lives on only if its host does.
    mutating func forget(_ id: Int) {
        nodes[id]?.isHeld = false
        collectDead()
    }

    mutating func replaceRoot(with id: Int) {
        let old = rootID
        nodes[id] = Node(state: .active, isRoot: true)
        rootID = id
        nodes[old]?.isHeld = false
        collectDead()
    }

    // MARK: Applying changes

    mutating func perform(_ change: Change) {
        if isApplying {
            queue.append(change)
            return
        }
        isApplying = true
        apply(change)
        var next = 0
        while next < queue.count {
            apply(queue[next])
            next += 1
        }
        queue = []
        isApplying = false
    }

    private mutating func apply(_ change: Change) {
        switch change {
        case .attach(let id, let host, let pending):
            if let error = attachmentError(id, to: host) {
                if let pending { pendingOutcomes[pending] = .refused(error) }
                return
            }
            if let pending { pendingOutcomes[pending] = .accepted }
            guard liveParent(of: id) != host else { return }
            // A move is a full detach first (S5), also from a host that is being deallocated (S7).
            if isHosted(id) { detach(id) }
            nodes[id]?.parent = host
            nodes[host]?.children.append(id)
            nodes[id]?.state = .attached
            hooked(id, .willAttach)
            if nodes[host]?.state == .active { activate(id) }
        case .detach(let id):
            if isHosted(id) { detach(id) }
        case .evict(let id, let host):
            if liveParent(of: id) == host { detach(id) }
        case .orphan(let id):
            if nodes[id]?.state != .detached { detach(id) }
        }
    }

    private mutating func detach(_ id: Int) {
        if nodes[id]?.state == .active { deactivate(id) }
        hooked(id, .willDetach)
        if let parent = liveParent(of: id) { nodes[parent]?.children.removeAll { $0 == id } }
        nodes[id]?.parent = nil
        nodes[id]?.state = .detached
        hooked(id, .didDetach)
    }

    private mutating func activate(_ id: Int) {
        nodes[id]?.state = .active
        hooked(id, .willActivate)
        if let model = nodes[id]?.model {
            if !model.isLoaded {
                events.append("n\(id).didLoad")
                nodes[id]?.model?.isLoaded = true
            }
            events.append("n\(id).didBecomeActive")
            nodes[id]?.model?.wasActivatedThisStep = true
            resync(id)
        }
        for child in nodes[id]?.children ?? [] {
            activate(child)
        }
    }

    private mutating func deactivate(_ id: Int) {
        for child in (nodes[id]?.children ?? []).reversed() where nodes[child]?.state == .active {
            deactivate(child)
        }
        hooked(id, .willDeactivate)
        nodes[id]?.state = .attached
        nodes[id]?.extras = 0
        if nodes[id]?.model != nil { events.append("n\(id).didBecomeInactive") }
        hooked(id, .didDeactivate)
    }

    private mutating func hooked(_ id: Int, _ hook: Hook) {
        events.append("n\(id).\(hook.rawValue)")
        guard let action = nodes[id]?.armed.removeValue(forKey: hook) else { return }
        hookResults.append("n\(id).\(hook.rawValue): " + perform(action))
    }

    /// Performs a change armed in a hook, as the harness's `World.perform(_:from:in:)` does with the library.
    private mutating func perform(_ action: HookAction) -> String {
        if avoidsKnownIssues, let issue = knownIssue(triggeredBy: action) {
            return "skipped: " + issue
        }
        switch action {
        case .attach(let slot, let host):
            guard let id = resolve(node: slot), let hostID = resolve(host) else { return "attach: nothing" }
            return "attach n\(id) to n\(hostID) → " + requestAttach(id, to: hostID)
        case .detach(let slot):
            guard let id = resolve(node: slot) else { return "detach: nothing" }
            return "detach n\(id) → \(requestDetach(id))"
        case .evict(let slot, let host):
            guard let id = resolve(node: slot), let hostID = resolve(host) else { return "evict: nothing" }
            requestEvict(id, from: hostID)
            return "evict n\(id) from n\(hostID)"
        }
    }

    private func knownIssue(triggeredBy action: HookAction) -> String? {
        switch action {
        case .attach(let slot, _):
            guard let id = resolve(node: slot), nodes[id]?.state != .detached, liveParent(of: id) == nil else {
                return nil
            }
            return KnownIssue.moveDuringTeardown
        case .detach(let slot), .evict(let slot, _):
            guard let id = resolve(node: slot), nodes[id]?.isHeld == false else { return nil }
            return KnownIssue.releaseInQueue
        }
    }

    // MARK: Deallocation

    func isAlive(_ id: Int) -> Bool {
        guard let node = nodes[id] else { return false }
        if node.isHeld { return true }
        guard let parent = node.parent else { return false }
        return isAlive(parent)
    }

    /// Lets go of every node that nothing keeps alive, as deallocation does: each dying node first orphans the
    /// children held elsewhere (they detach, with their hooks), then releases the others, which die in turn.
    mutating func collectDead() {
        while true {
            let tops = nodes.keys.filter { id in
                !isAlive(id) && (liveParent(of: id).map { isAlive($0) } ?? true)
            }
            guard !tops.isEmpty else { return }
            deathsThisStep += tops.count
            for id in tops.sorted() { die(id) }
        }
    }

    private mutating func die(_ id: Int) {
        guard let node = nodes.removeValue(forKey: id) else { return }
        for child in node.children where nodes[child]?.isHeld == true && nodes[child]?.parent == id {
            perform(.orphan(child))
        }
        for child in node.children where nodes[child] != nil && nodes[child]?.parent == id && !isAlive(child) {
            die(child)
        }
    }
}
