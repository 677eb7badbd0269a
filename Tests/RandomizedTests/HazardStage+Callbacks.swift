import Sobreiro
import Synchronization

/// An object a handler or a view captures, which calls back into `model` when it is released: it cancels a
/// subscription of that model, subscribes to it, or writes to it. The library may release it on any thread,
/// but never under the model's lock (R4): there, the call back would wait for the lock its own thread holds.
final class DeinitCallback: Sendable {
    let does: Callback
    weak let model: PlainTally?
    weak let token: StateSubscription?
    let sink: SinkView

    init(does: Callback, model: PlainTally, token: StateSubscription?, sink: SinkView) {
        self.does = does
        self.model = model
        self.token = token
        self.sink = sink
    }

    deinit {
        switch does {
        case .cancelToken: token?.cancel()
        case .subscribe: model?.subscribe(view: sink)
        case .write: model?.write { $0.count += 1 }
        case .nothing: break
        }
    }
}

/// A view that only counts what it renders; the harness keeps it, so it never dies under a callback.
final class SinkView: StatefulView, Sendable {
    let renders = Atomic<Int>(0)

    func render(state: Tally) {
        renders.add(1, ordering: .relaxed)
    }
}

/// A view that holds a callback, which runs when the harness drops the view.
final class CallbackView: StatefulView, Sendable {
    let callback: DeinitCallback

    init(callback: DeinitCallback) {
        self.callback = callback
    }

    func render(state: Tally) {}
}

/// Followers whose handlers capture callbacks, spare views, and the steps that make the library let go of
/// them: unsubscribing, a follower that died before the next write prunes it, a subscription replacing a dead
/// entry. The oracle is that no step hangs (the supervisor reports one that does), and that the followers end
/// on their publishers' values.
final class CallbackStage: HazardStage {
    let findings: Findings
    let publishers = [PlainTally(slot: 0), PlainTally(slot: 1)]
    var followers = [PlainTally(slot: 2), PlainTally(slot: 3)]
    /// Which publishers each follower follows, as far as the harness knows.
    var follows: [Set<Int>] = [[], []]
    var spares: [(view: CallbackView, token: StateSubscription)?] = [nil, nil]
    let sink = SinkView()

    init(findings: Findings) {
        self.findings = findings
    }

    private func callback(_ does: Callback, on publisher: Int) -> DeinitCallback {
        DeinitCallback(
            does: does,
            model: publishers[publisher],
            token: spares[publisher]?.token,
            sink: sink
        )
    }

    func apply(_ hazard: Hazard) {
        switch hazard {
        case .follow(let f, let p, let does):
            let hook = callback(does, on: p)
            // The token is dropped: the handler, and the callback it captures, belong to the model alone.
            _ = followers[f].subscribe(to: publishers[p]) { [weak follower = followers[f]] state in
                _ = hook
                follower?.write { $0.whole.set(\.mirrors, state.slot, to: state.value) }
            }
            follows[f].insert(p)
        case .unfollow(let f, let p):
            followers[f].unsubscribe(from: publishers[p])
            follows[f].remove(p)
        case .recreateFollower(let f):
            followers[f] = PlainTally(slot: 2 + f)
            follows[f] = []
        case .write(let p, let value):
            publishers[p].write { $0.whole.setValue(value) }
        case .subscribeSpare(let p, let does):
            let view = CallbackView(callback: callback(does, on: p))
            spares[p] = (view, publishers[p].subscribe(view: view))
        case .cancelSpare(let p):
            spares[p]?.token.cancel()
        case .dropSpare(let p):
            spares[p] = nil
        default:
            preconditionFailure("not a callbacks hazard: \(hazard)")
        }
        check()
    }

    /// Every live follower mirrors the value of each publisher it follows (C1).
    private func check() {
        for (f, follower) in followers.enumerated() {
            for p in follows[f] where follower.state.mirrors[p] != publishers[p].state.value {
                findings.record(
                    "follower \(f) follows publisher \(p) but mirrors \(String(describing: follower.state.mirrors[p])), "
                        + "not \(publishers[p].state.value)"
                )
            }
        }
    }

    func finish() {
        for p in publishers.indices { publishers[p].write { $0.count += 1 } }
        followers = []
        spares = [nil, nil]
        for p in publishers.indices { publishers[p].write { $0.count += 1 } }
    }
}
