import SobreiroTrace

/// Applies changes to scope trees one at a time.
///
/// A change requested while another is being applied (from inside a hook) waits in a queue and runs when the
/// current one completes, so every hook sees a consistent tree and no node is ever active under an inactive
/// host. Every condition of a change is checked in `apply(_:)`, when it runs: the changes queued before it may
/// have moved the nodes it names since it was requested.
@MainActor
enum Lifecycle {
    enum Change {
        /// With the request to report to, when it was queued, and the child to go before, if any.
        case attach(Behavior, to: Scope, PendingAttachment?, before: Behavior?)
        /// With the request to report to, when it was queued.
        case detach(Behavior, PendingDetachment?)
        case evict(Behavior, from: Scope)
        /// Puts the children of the scope among the behaviors in the given order; no hook runs.
        case arrange([Behavior], in: Scope)
        /// The behavior's host was deallocated while the behavior lives on.
        case orphan(Behavior)
    }

    /// Whether a change is being applied, so that a new one will be queued.
    @exclusivity(unchecked)
    private(set) static var isApplying = false
    @exclusivity(unchecked)
    private static var queue: [Change] = []

    static func perform(_ change: Change) {
        if isApplying {
            queue.append(change)
            return
        }
        isApplying = true
        apply(change)
        // Batch by batch: releasing a batch can deallocate a scope, whose deinit queues the orphaning of its
        // children while a change is still being applied; the next turn of the loop applies those too.
        while !queue.isEmpty {
            let batch = queue
            queue = []
            for queued in batch { apply(queued) }
        }
        isApplying = false
    }

    private static func apply(_ change: Change) {
        switch change {
        case .attach(let behavior, let host, let pending, let sibling):
            // Checked again: the tree may have changed since the request was queued.
            if let refusal = behavior.attachmentError(to: host) {
                pending?.outcome = .refused(refusal)
                behavior.warnOfRefusedAttachment(to: host, refusal)
                return
            }
            pending?.outcome = .accepted
            guard behavior.host !== host else { return }
            // A behavior whose host is being deallocated must leave it properly before it joins another.
            if behavior.isHosted { detach(behavior) }
            behavior.host = host
            if let sibling { host.childList.insert(behavior, before: sibling) } else { host.childList.append(behavior) }
            behavior.state = .attached
            Trace.record(.transition(from: "detached", to: "attached"), about: behavior)
            Trace.record(.hook("willAttach"), about: behavior)
            behavior.willAttach()
            for observer in behavior.activationObservers { observer.behaviorDidAttach() }
            if host.state == .active { activate(behavior) }
        case .detach(let behavior, let pending):
            // A behavior whose host is being deallocated still has it: it leaves now, not when it is orphaned.
            guard behavior.isHosted else {
                pending?.outcome = .alreadyDetached
                return
            }
            pending?.outcome = .detached
            detach(behavior)
        case .evict(let behavior, let host):
            if behavior.host === host { detach(behavior) }
        case .arrange(let behaviors, let host):
            // The list skips those it no longer holds: the changes queued before this one may have moved some.
            host.childList.arrange(behaviors)
        case .orphan(let behavior):
            // A hook may have moved it to another host since its host began to go.
            if behavior.host == nil, behavior.state != .detached { detach(behavior) }
        }
    }

    private static func detach(_ behavior: Behavior) {
        if behavior.state == .active { deactivate(behavior) }
        Trace.record(.hook("willDetach"), about: behavior)
        behavior.willDetach()
        // A host being deallocated reads nil here and lets its whole list go.
        if let host = behavior.host { host.childList.remove(behavior) }
        behavior.host = nil
        behavior.state = .detached
        Trace.record(.transition(from: "attached", to: "detached"), about: behavior)
        Trace.record(.hook("didDetach"), about: behavior)
        behavior.didDetach()
        for observer in behavior.activationObservers { observer.behaviorDidDetach() }
    }

    /// Activates `behavior`, then its subtree, parents before children, siblings in attachment order.
    private static func activate(_ behavior: Behavior) {
        behavior.state = .active
        Trace.record(.transition(from: "attached", to: "active"), about: behavior)
        Trace.record(.hook("willActivate"), about: behavior)
        var cancellables = Set<AnyCancellable>()
        behavior.willActivate(cancellables: &cancellables)
        behavior.activationCancellables.formUnion(cancellables)
        for observer in behavior.activationObservers { observer.behaviorDidActivate() }
        guard let scope = behavior as? Scope else { return }
        for case let child? in scope.childList.slots {
            activate(child)
        }
    }

    /// Deactivates the subtree of `behavior`, children before parents, siblings in reverse attachment order,
    /// then `behavior` itself.
    private static func deactivate(_ behavior: Behavior) {
        if let scope = behavior as? Scope {
            for case let child? in scope.childList.slots.reversed() where child.state == .active {
                deactivate(child)
            }
        }
        Trace.record(.hook("willDeactivate"), about: behavior)
        behavior.willDeactivate()
        behavior.state = .attached
        Trace.record(.transition(from: "active", to: "attached"), about: behavior)
        let cancellables = behavior.activationCancellables
        behavior.activationCancellables = []
        for cancellable in cancellables { cancellable.cancel() }
        for observer in behavior.activationObservers.reversed() { observer.behaviorDidDeactivate() }
        Trace.record(.hook("didDeactivate"), about: behavior)
        behavior.didDeactivate()
    }

    /// Called as a host is deallocated. Children that only the host kept alive go with it, their work
    /// cancelled as their cancellables are released; children kept alive elsewhere are detached properly.
    static func orphan(children: inout ChildList) {
        children.forEachHeldElsewhere { perform(.orphan($0)) }
    }
}
