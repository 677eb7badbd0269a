import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import Synchronization

/// Where an effect's operations wait until a step lets them finish; a cancelled operation leaves at once.
final class RunGate: Sendable {
    private struct Contents {
        var isOpen = false
        var next = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelled: Set<Int> = []
    }

    private let contents = Locked(Contents())

    func wait() async {
        let id = contents.withLock { contents in
            contents.next += 1
            return contents.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let goes = contents.withLock { contents in
                    guard !contents.isOpen, !contents.cancelled.contains(id) else { return true }
                    contents.waiters[id] = continuation
                    return false
                }
                if goes { continuation.resume() }
            }
        } onCancel: {
            let waiter = contents.withLock { contents in
                contents.cancelled.insert(id)
                return contents.waiters.removeValue(forKey: id)
            }
            waiter?.resume()
        }
    }

    /// Lets every waiting operation finish, and those that come later pass, until `close()`.
    func open() {
        let waiters = contents.withLock { contents in
            contents.isOpen = true
            defer { contents.waiters = [:] }
            return Array(contents.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func close() {
        contents.withLock { $0.isOpen = false }
    }
}

struct EffectState: ViewState {
    var request = 0
    var response = 0
    var noise = 0
}

/// A bound model whose effect answers each request with the request itself, once its run gate lets it, and
/// whose reduce checks that the state it writes into still asks for what the run answered: a run never
/// writes into a state that has moved on.
final class EffectModel: ViewModel<EffectState>, ScopedViewModel, @unchecked Sendable {
    let findings: Findings
    let gate: RunGate

    init(findings: Findings, gate: RunGate) {
        self.findings = findings
        self.gate = gate
        super.init(initialState: EffectState())
    }

    func didBecomeActive(_ activation: Activation<EffectModel>) {
        let (findings, gate) = (findings, gate)
        activation.effect(.onChange(of: \.request), strategy: .cancelOnNewState) { request in
            await gate.wait()
            return Task.isCancelled ? -1 - request : request
        } reduce: { state, result in
            guard case .success(let answer) = result else { return }
            if answer != state.request {
                findings.record(
                    "the run for request \(answer) wrote into a state that had moved on to request \(state.request)"
                )
            }
            state.response = answer
        }
    }
}

/// An active model with an effect, a slow view on it, and writes from other threads: a write that stops at
/// the slow view holds the deliverer role, so the states committed after it reach the effect late, while its
/// runs finish when a step opens their gate.
///
/// Oracles: a run's result lands only in a state that still asks for it (checked inside the reduce); once
/// every gate is open and the effects have settled, the response answers the latest request.
final class EffectStage: HazardStage, @unchecked Sendable {
    let findings: Findings
    let gate = RunGate()
    let model: EffectModel
    let slow = SlowView<EffectState>()
    private var root: RootScope?

    init(findings: Findings) {
        self.findings = findings
        model = EffectModel(findings: findings, gate: gate)
        let model = model
        root = onMain {
            let root = RootScope()
            let scope = Scope()
            scope.bind(model)
            root.host(scope)
            return root
        }
        model.subscribe(view: slow)
    }

    func apply(_ hazard: Hazard) {
        let model = model
        switch hazard {
        case .armSlowView: slow.gate.arm()
        case .releaseSlowView: slow.gate.open()
        case .writeElsewhere(let value):
            writeElsewhere(stoppingAt: slow.gate, findings: findings) { model.write { $0.noise = value } }
        case .request(let value):
            writeElsewhere(stoppingAt: slow.gate, findings: findings) { model.write { $0.request = value } }
        case .openRuns:
            gate.open()
            settle()
        case .closeRuns: gate.close()
        default: preconditionFailure("not an effects hazard: \(hazard)")
        }
    }

    /// Waits until the effect's runs have ended and written back. While the slow view holds a deliverer, a
    /// write-back may wait behind it, so the wait is short then: the reduce checks each write-back anyway.
    private func settle() {
        let model = model
        let isRunning = { (EffectActivity.of(model)?.running ?? 0) > 0 }
        if waitUntil(seconds: 0.05, { !isRunning() }) || slow.gate.isHolding { return }
        if !waitUntil({ !isRunning() || slow.gate.isHolding }) {
            findings.record(
                "the effect's runs did not end within \(Int(HazardRun.waitLimit)) s of their gate opening, with no view holding them"
            )
        }
    }

    func finish() {
        slow.gate.open()
        gate.open()
        settle()
        _ = waitUntil { model.state.response == model.state.request }
        if model.state.response != model.state.request {
            findings.record("the effect settled on response \(model.state.response) for request \(model.state.request)")
        }
        let root = root
        self.root = nil
        onMain { _ = root }
    }
}
