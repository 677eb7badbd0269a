import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Synchronization

/// A main-actor view that writes back from its render, and reports a render nested inside another.
@MainActor
final class WritingMainView: MainActorStatefulView {
    let findings: Findings
    let name: String
    weak let model: PlainTally?
    var isRendering = false
    var last: Tally?

    init(name: String, model: PlainTally, findings: Findings) {
        self.name = name
        self.model = model
        self.findings = findings
    }

    func render(state: Tally) {
        if isRendering {
            findings.record("\(name): render of \(state.value) v\(state.version) began inside another render")
        }
        if let last, state.version < last.version {
            findings.record("\(name): rendered v\(state.version) after v\(last.version)")
        }
        isRendering = true
        defer { isRendering = false }
        last = state
        // Write back, as a view marks a message read: an odd value becomes the next even one.
        if state.value % 2 == 1 { model?.write { $0.whole.setValue(state.value + 1) } }
    }
}

/// An event handler that reports a call after its cancellation.
final class HandlerProbe: Sendable {
    let name: String
    let findings: Findings
    let isCancelled = Atomic<Bool>(false)

    init(name: String, findings: Findings) {
        self.name = name
        self.findings = findings
    }

    func receive(_ event: Int) {
        if isCancelled.load(ordering: .acquiring) {
            findings.record("\(name) received event \(event) after it was cancelled (R5)")
        }
    }
}

/// Event channels sent to from the driver and the main queue, with handlers on the sending thread and on the
/// main actor; and main-actor views whose renders write back, written to from both. The main queue runs only
/// when a step drains it (`MainQueueHold`), so the order of hops and cancellations is the steps' own.
///
/// Oracles: no handler runs after it was cancelled or released (R5); no main-actor render begins inside
/// another; once the main queue is drained, every main-actor view shows its model's state.
final class MainActorStage: HazardStage, @unchecked Sendable {
    let findings: Findings
    let channel = EventChannel<Int>()
    let models = [PlainTally(slot: 0), PlainTally(slot: 1)]
    var handlers: [(probe: HandlerProbe, token: AnyCancellable)?] = [nil, nil, nil]
    var views: [WritingMainView?] = [nil, nil, nil]
    let main = MainQueueHold()
    private var next = 0

    init(findings: Findings) {
        self.findings = findings
        main.hold()
    }

    func apply(_ hazard: Hazard) {
        switch hazard {
        case .subscribeHandler(let slot, let onMainActor):
            cancel(slot)
            next += 1
            let probe = HandlerProbe(name: "handler \(next)\(onMainActor ? " (main actor)" : "")", findings: findings)
            let token =
                onMainActor
                ? main.run { channel.subscribe(onMainActor: { probe.receive($0) }) }
                : channel.subscribe { probe.receive($0) }
            handlers[slot] = (probe, token)
        case .cancelHandler(let slot):
            cancel(slot)
        case .releaseHandler(let slot):
            // From the driver, while events may wait on the main queue: from then on the handler must not run.
            handlers[slot]?.probe.isCancelled.store(true, ordering: .releasing)
            handlers[slot] = nil
        case .send(let value, let fromMain):
            if fromMain { main.run { channel.send(value) } } else { channel.send(value) }
        case .subscribeMainView(let slot, let model):
            next += 1
            let model = models[model]
            let findings = findings
            let name = "main-actor view \(next)"
            views[slot] = main.run {
                let view = WritingMainView(name: name, model: model, findings: findings)
                model.subscribe(view: view)
                if view.last == nil { findings.record("\(name): subscribe(view:) returned before it rendered (V1)") }
                return view
            }
        case .unsubscribeMainView(let slot):
            guard let view = views[slot] else { return }
            main.run { view.model?.unsubscribe(view: view) }
            views[slot] = nil
        case .writeMain(let model, let value, let fromMain):
            let model = models[model]
            if fromMain {
                main.run { model.write { $0.whole.setValue(value) } }
            } else {
                model.write { $0.whole.setValue(value) }
            }
        case .drainMainQueue:
            main.drain()
            checkViews()
        default:
            preconditionFailure("not a main-actor hazard: \(hazard)")
        }
    }

    /// Cancels a handler from the driver, while events sent to it may wait on the main queue, which the driver
    /// has not drained: any call after this is late (R5).
    private func cancel(_ slot: Int) {
        guard let (probe, token) = handlers[slot] else { return }
        probe.isCancelled.store(true, ordering: .releasing)
        token.cancel()
        handlers[slot] = nil
    }

    /// Once the main queue has run what was queued, each view shows its model's state (D4).
    private func checkViews() {
        let findings = findings
        for view in views.compactMap({ $0 }) {
            main.run {
                guard let model = view.model, view.last != model.state else { return }
                findings.record(
                    "\(view.name) ended on \(view.last.map { "\($0.value) v\($0.version)" } ?? "nothing"), but the "
                        + "model holds \(model.state.value) v\(model.state.version) (D4)"
                )
            }
        }
    }

    func finish() {
        main.drain()
        checkViews()
        for slot in handlers.indices { cancel(slot) }
        for value in 0..<3 { channel.send(value) }
        main.release()
        drainMainQueue()
        onMain { views = [nil, nil, nil] }
    }
}
