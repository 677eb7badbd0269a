import Sobreiro
import SobreiroPrimitives
import Synchronization

/// A view that renders slowly when a step asks it to: its render stops at `gate` until another step opens it,
/// holding the thread that delivers to it, and so the deliverer role of its model.
final class SlowView<State: ViewState>: StatefulView, Sendable {
    let gate = Gate()
    let last = Locked<State?>(nil)

    func render(state: State) {
        last.withLock { $0 = state }
        gate.pass()
    }
}

/// A view that tells whether it has rendered, and what it rendered last.
final class MarkView: StatefulView, Sendable {
    let last = Locked<Tally?>(nil)

    func render(state: Tally) {
        last.withLock { $0 = state }
    }
}

/// A model delivered to a slow view on other threads, while the driver subscribes and unsubscribes views.
///
/// Oracles: `subscribe(view:)` renders the new view before it returns, even while another thread delivers to
/// the slow view (V1); once every gate is open, each subscribed view shows the model's state (D4).
final class DeliveryStage: HazardStage {
    let findings: Findings
    let model = PlainTally(slot: 0)
    let slow = SlowView<Tally>()
    var views: [MarkView?] = [nil, nil, nil]

    init(findings: Findings) {
        self.findings = findings
        model.subscribe(view: slow)
    }

    func apply(_ hazard: Hazard) {
        switch hazard {
        case .armSlowView:
            slow.gate.arm()
        case .releaseSlowView:
            slow.gate.open()
        case .writeElsewhere(let value):
            let model = model
            writeElsewhere(stoppingAt: slow.gate, findings: findings) { model.write { $0.whole.setValue(value) } }
        case .subscribeView(let slot):
            if let view = views[slot] { model.unsubscribe(view: view) }
            let view = MarkView()
            model.subscribe(view: view)
            if view.last.withLock({ $0 }) == nil {
                let busy = slow.gate.isHolding ? " while another thread delivered to a slow view" : ""
                findings.record("subscribe(view:) returned before the new view rendered\(busy) (V1)")
            }
            views[slot] = view
        case .unsubscribeView(let slot):
            if let view = views[slot] { model.unsubscribe(view: view) }
            views[slot] = nil
        default:
            preconditionFailure("not a delivery hazard: \(hazard)")
        }
    }

    func finish() {
        slow.gate.open()
        _ = waitUntil { views.allSatisfy { $0 == nil || $0!.last.withLock { $0 } == model.state } }
        for view in views.compactMap({ $0 }) where view.last.withLock({ $0 }) != model.state {
            findings.record("a view ended on \(String(describing: view.last.withLock { $0 })), not \(model.state) (D4)")
        }
    }
}
