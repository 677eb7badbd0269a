import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import Synchronization

struct AsyncWriterState: ViewState {
    var count = 0
    var request = 0
    var response = 0
}

/// Stays in a transaction for `iterations` turns of a loop that the optimizer cannot remove, so that the writers'
/// transactions overlap often; always 0.
private func spin(_ iterations: Int) -> Int {
    var sum = 0
    for turn in 0..<iterations { sum &+= turn &* 31 }
    return withExtendedLifetime(sum) { sum == -1 ? 1 : 0 }
}

/// A bound model whose effect answers each request after a suspension, and writes the answer back in a
/// transaction of its own, while tasks write to the same model.
final class AsyncWriterModel: ViewModel<AsyncWriterState>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: AsyncWriterState())
    }

    func didBecomeActive(_ activation: Activation<AsyncWriterModel>) {
        activation.effect(.onChange(of: \.request), strategy: .cancelOnNewState) { request in
            await Task.yield()
            return request
        } reduce: { state, result in
            if case .success(let answer) = result { state.response = answer }
        }
    }
}

/// Tasks of the cooperative pool that write to one model across `await`, so that a task resumes on another
/// thread between two of its writes, mixing the three forms of a write, beside the model's effect writing back.
///
/// Oracles: every increment lands (T1), none traps, and once the tasks are done and the effect has settled, its
/// response answers the latest request.
final class AsyncWriterStage: HazardStage, @unchecked Sendable {
    let findings: Findings
    let model = AsyncWriterModel()
    private var expected = 0
    private var root: RootScope?

    init(findings: Findings) {
        self.findings = findings
        let model = model
        root = onMain {
            let root = RootScope()
            let scope = Scope()
            scope.bind(model)
            root.host(scope)
            return root
        }
    }

    func apply(_ hazard: Hazard) {
        guard case .writeAcrossAwait(let tasks, let rounds, let dwell) = hazard else {
            preconditionFailure("not an async writers hazard: \(hazard)")
        }
        let model = model
        let finished = Counter()
        for _ in 0..<tasks {
            Task.detached {
                // Every form of a write, each after a suspension that may resume the task on another thread.
                for round in 0..<rounds {
                    model.write { $0.count += 1 + spin(dwell) }
                    await Task.yield()
                    model.write { model.state.count += 1 + spin(dwell) }
                    await Task.yield()
                    model.update {
                        var next = model.state
                        next.count += 1 + spin(dwell)
                        return next
                    }
                    await Task.yield()
                    model.write {
                        $0.count += 1 + spin(dwell)
                        $0.request = round
                    }
                    await Task.yield()
                }
                finished.increment()
            }
        }
        expected += tasks * rounds * 4
        if !waitUntil({ finished.value == tasks }) {
            findings.record("\(tasks - finished.value) of \(tasks) writing tasks did not finish")
        }
        let count = model.state.count
        if count != expected {
            findings.record("the model counts \(count) increments, expected \(expected) (T1)")
            expected = count
        }
    }

    func finish() {
        let model = model
        _ = waitUntil { model.state.response == model.state.request }
        if model.state.response != model.state.request {
            findings.record("the effect settled on response \(model.state.response) for request \(model.state.request)")
        }
        let root = root
        self.root = nil
        onMain { _ = root }
    }
}
