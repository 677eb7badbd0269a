import Dispatch
import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Synchronization

/// A bound model that keeps its current activation, so that steps can make sequences of it.
final class SequenceModel: ViewModel<Tally>, ScopedViewModel, @unchecked Sendable {
    @MainActor weak var activation: Activation<SequenceModel>?

    init() {
        super.init(initialState: Tally(slot: 0))
    }

    func didBecomeActive(_ activation: Activation<SequenceModel>) {
        self.activation = activation
    }
}

/// One task awaiting one `next()` of a copy of an iterator.
struct Consumer {
    let task: Task<Void, Never>
    let isDone: Counter
    let name: String
}

/// Iterators of `model.states` and `activation.states()`, copies of them awaited by several tasks at once,
/// cancellations, writes, deactivations, and iterators made and dropped by the hundred.
///
/// Oracles: copies of one iterator share its states, each state going to one waiting copy, so a write resumes
/// at least one waiting consumer, and a cancellation or a deactivation resumes every consumer whose iterator it
/// finishes, whichever copy it awaits (no hang); an activation keeps no more end-of-activation work than it has
/// live iterators (memory stays bounded while it lasts).
final class SequenceStage: HazardStage, @unchecked Sendable {
    let findings: Findings
    let model = SequenceModel()
    let scope: Scope
    private var root: RootScope?
    var iterators: [StateSequence<Tally>.Iterator?] = [nil, nil, nil]
    var consumers: [Consumer] = []
    private var made = 0

    init(findings: Findings) {
        self.findings = findings
        let model = model
        (root, scope) = onMain {
            let root = RootScope()
            let scope = Scope()
            scope.bind(model)
            root.host(scope)
            return (root, scope)
        }
    }

    private var sequenceOfActivation: StateSequence<Tally> {
        let model = model
        return onMain { model.activation?.states() } ?? model.states
    }

    func apply(_ hazard: Hazard) {
        switch hazard {
        case .makeIterator(let slot, let ofActivation):
            iterators[slot] = (ofActivation ? sequenceOfActivation : model.states).makeAsyncIterator()
        case .copyIterator(let from, let to):
            iterators[to] = iterators[from]
        case .consume(let slot):
            guard let iterator = iterators[slot] else { return }
            made += 1
            let isDone = Counter()
            let task = Task.detached {
                var copy = iterator
                _ = await copy.next()
                isDone.increment()
            }
            consumers.append(Consumer(task: task, isDone: isDone, name: "consumer \(made) of iterator \(slot)"))
        case .cancelConsumers:
            for consumer in consumers { consumer.task.cancel() }
            expectConsumersDone(after: "their tasks were cancelled")
        case .writeSequence:
            let waiting = consumers.filter { $0.isDone.value == 0 }.count
            model.write { $0.count += 1 }
            if waiting > 0, !waitUntil({ consumers.filter { $0.isDone.value == 0 }.count < waiting }) {
                findings.record("none of the \(waiting) consumers waiting resumed after a write")
            }
            consumers.removeAll { $0.isDone.value > 0 }
        case .toggleActivation:
            let (scope, root) = (scope, root!)
            onMain {
                if scope.host == nil { root.host(scope) } else { _ = scope.detach() }
            }
        case .churn(let count, let ofActivation):
            let sequence = ofActivation ? sequenceOfActivation : model.states
            for _ in 0..<count { _ = sequence.makeAsyncIterator() }
            checkEndWork()
        default:
            preconditionFailure("not a sequences hazard: \(hazard)")
        }
    }

    /// Every consumer that waits resumes: a cancellation finishes the iterator it awaits.
    private func expectConsumersDone(after cause: String) {
        _ = waitUntil { consumers.allSatisfy { $0.isDone.value > 0 } }
        for consumer in consumers where consumer.isDone.value == 0 {
            findings.record("\(consumer.name) never resumed after \(cause), although other copies of it did")
        }
        consumers.removeAll { $0.isDone.value > 0 }
    }

    /// The work an activation keeps for its end is bounded by the iterators alive, not by those ever made.
    private func checkEndWork() {
        let model = model
        let kept = onMain { model.activation?.ending.pendingActionCount } ?? 0
        let bound = iterators.count + 8
        if kept > bound {
            findings.record(
                "the activation keeps \(kept) closures for its end with at most \(iterators.count) iterators alive: "
                    + "every iterator ever made leaves one behind"
            )
        }
    }

    func finish() {
        for consumer in consumers { consumer.task.cancel() }
        expectConsumersDone(after: "the end of the run")
        iterators = [nil, nil, nil]
        let root = root
        self.root = nil
        onMain { _ = root }
    }
}
