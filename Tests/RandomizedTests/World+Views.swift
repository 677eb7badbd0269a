import Sobreiro

extension World {
    func applyViewOperation(_ operation: Operation) {
        switch operation {
        case .makeView(let slot, let source, let reaction):
            makeView(slot, source: source, reaction: reaction)
        case .subscribe(let slot):
            subscribeView(slot)
        case .unsubscribe(let slot):
            unsubscribeView(slot)
        case .cancelToken(let slot):
            guard let entry = views[slot] else { return }
            entry.token?.cancel()
            // Only the token of the current subscription ends it.
            if entry.isSubscribed { markUnsubscribed(slot) }
        case .cancelStaleToken(let slot):
            views[slot]?.staleToken?.cancel()
        case .dropView(let slot):
            guard let entry = views[slot] else { return }
            mustBeGone.append(Watched(name: "view \(slot) (v\(entry.id)), dropped", object: entry.probe.object))
            views[slot] = nil
        default:
            preconditionFailure("not a view operation: \(operation)")
        }
    }

    private func makeView(_ slot: Int, source: ViewSource, reaction: Reaction) {
        if let old = views[slot] {
            mustBeGone.append(Watched(name: "view \(slot) (v\(old.id)), replaced", object: old.probe.object))
            views[slot] = nil
        }
        let id = newID()
        let model: ViewModel<Tally>?
        // Views of bound models may render on the thread an effect ends on, so they never react: their
        // reactions would touch the harness off the main actor.
        var reaction = reaction
        switch source {
        case .model(let index), .projection(let index):
            model = models[index]
        case .scopedModel(let node):
            model = nodeSlots[node].flatMap { records[$0]?.model }
            reaction = .none
        }
        var echoTarget: PlainTally?
        if case .echo(let index) = reaction { echoTarget = models[index] }
        var react: @Sendable (Any) -> Void = { _ in }
        if case .subscribe = reaction {
            react = { [weak self] _ in MainActor.assumeIsolated { self?.react(fromView: id) } }
        } else if case .unsubscribe = reaction {
            react = { [weak self] _ in MainActor.assumeIsolated { self?.react(fromView: id) } }
        }
        let probe: AnyProbe
        if case .projection = source {
            probe = .digest(ProbeView<Digest>(id: id, echoTarget: echoTarget, reaction: react))
        } else {
            probe = .whole(ProbeView<Tally>(id: id, echoTarget: echoTarget, reaction: react))
        }
        views[slot] = ViewSlot(id: id, probe: probe, model: model, pendingReaction: reaction)
        watch("view \(slot) (v\(id))", probe.object)
    }

    /// Runs a view's one-time `.subscribe` or `.unsubscribe` reaction, from inside its render.
    private func react(fromView id: Int) {
        guard let slot = views.firstIndex(where: { $0?.id == id }), let reaction = views[slot]?.pendingReaction
        else { return }
        if views[slot]?.rendersBeforeReaction ?? 0 > 0 {
            views[slot]?.rendersBeforeReaction -= 1
            return
        }
        switch reaction {
        case .subscribe(let target):
            views[slot]?.pendingReaction = .none
            subscribeView(target)
        case .unsubscribe(let target):
            views[slot]?.pendingReaction = .none
            unsubscribeView(target)
        case .none, .echo:
            return
        }
    }

    /// Subscribes the view in `slot` to its model; from an operation, or re-entrantly from a render.
    func subscribeView(_ slot: Int) {
        guard let entry = views[slot], let model = entry.model else { return }
        let rendersBefore = entry.probe.renders
        if entry.isSubscribed {
            let token = Self.subscribe(entry.probe, to: model)
            // Re-entrantly, from a render inside the first subscription, its token is not known yet.
            if !entry.isSubscribing, token !== entry.token {
                violation("V3", "subscribing view \(slot) (v\(entry.id)) again returned a new token")
            }
            if entry.probe.renders != rendersBefore {
                violation("V3", "subscribing view \(slot) (v\(entry.id)) again rendered it again")
            }
            return
        }
        entry.probe.willSubscribe()
        // Marked first: the first render may unsubscribe this very view, re-entrantly.
        views[slot]?.isSubscribed = true
        views[slot]?.isSubscribing = true
        let isInsideDelivery = model.isDeliveringOnCurrentThread
        let token = Self.subscribe(entry.probe, to: model)
        views[slot]?.isSubscribing = false
        let previous = views[slot]?.token
        views[slot]?.staleToken = previous
        views[slot]?.token = token
        // Inside a delivery of the same model, directly or through the renders and handlers of others, the first
        // render comes right after the current call instead (D5): the checks after the operation see that it came.
        if entry.probe.renders == rendersBefore, !isInsideDelivery {
            violation("V1", "subscribe(view:) returned before rendering view \(slot) (v\(entry.id))")
        }
    }

    /// Unsubscribes the view in `slot`: `unsubscribe(view:)` for a view of a whole state, the token for a view
    /// of a projection, which has no other way out.
    func unsubscribeView(_ slot: Int) {
        guard let entry = views[slot], let model = entry.model else { return }
        switch entry.probe {
        case .whole(let view):
            model.unsubscribe(view: view)
        case .digest:
            // Inside its own first render, the token that would end it has not been returned yet.
            guard !entry.isSubscribing else { return }
            if entry.isSubscribed { entry.token?.cancel() }
        }
        if entry.isSubscribed { markUnsubscribed(slot) }
    }

    private func markUnsubscribed(_ slot: Int) {
        views[slot]?.isSubscribed = false
        views[slot]?.probe.didUnsubscribe()
    }

    /// Views whose model is gone are subscribed to nothing.
    func forgetViewsOfDeadModels() {
        for slot in views.indices where views[slot]?.model == nil && views[slot]?.isSubscribed == true {
            markUnsubscribed(slot)
        }
    }

    nonisolated static func subscribe(_ probe: AnyProbe, to model: ViewModel<Tally>) -> StateSubscription {
        switch probe {
        case .whole(let view): model.subscribe(view: view)
        case .digest(let view): model.map(\.digest).subscribe(view: view)
        }
    }
}
