import Sobreiro
import SobreiroPrimitives

/// A view that checks every render as it arrives: never two at once, never while it is not subscribed, never a
/// state that was not committed, never an older state after a newer one. It runs `reaction` inside each
/// render, which is where randomized runs write, subscribe and unsubscribe re-entrantly.
///
/// Thread-safe: the concurrent run renders it from several threads, and in the sequential run an effect's
/// write-back renders views of bound models from the thread the effect ends on.
final class ProbeView<State: Rendered>: StatefulView, @unchecked Sendable {
    struct Record {
        var renders = 0
        var last: State?
        /// Whether the view is subscribed, as far as the harness knows; set before subscribing and after
        /// unsubscribing, so that any render outside that window is a violation.
        var expectsRenders = false
        /// Whether the next render is the first of a subscription, which may repeat the last state seen.
        var isFirstOfSubscription = true
        /// Whether ordering is checked strictly (one subscriber, one deliverer at a time) or may repeat a
        /// state (the concurrent run cannot tell the first render of a new subscription apart).
        var allowsRepeats = false
        var isRendering = false
        var violations: [String] = []
    }

    let id: Int
    /// The model this view echoes its rendered values into, if any.
    weak let echoTarget: PlainTally?
    private let record = Locked(Record())
    private let reaction: @Sendable (State) -> Void

    init(id: Int, echoTarget: PlainTally? = nil, reaction: @escaping @Sendable (State) -> Void = { _ in }) {
        self.id = id
        self.echoTarget = echoTarget
        self.reaction = reaction
    }

    func render(state: State) {
        record.withLock { record in
            if record.isRendering { record.violations.append("render of \(state) overlapped another render") }
            if !record.expectsRenders { record.violations.append("rendered \(state) while not subscribed") }
            if state.value < 0 { record.violations.append("rendered \(state), which was never committed") }
            if let last = record.last {
                let repeats = state.stamp == last.stamp && (record.isFirstOfSubscription || record.allowsRepeats)
                if state.stamp < last.stamp || (state.stamp == last.stamp && !repeats) {
                    record.violations.append("went backwards: rendered \(state) after \(last)")
                }
            }
            record.isRendering = true
            record.isFirstOfSubscription = false
            record.renders += 1
            record.last = state
        }
        let id = id
        if let echoTarget {
            echoTarget.write { $0.whole.set(\.echoes, id, to: state.value) }
        }
        reaction(state)
        record.withLock { $0.isRendering = false }
    }

    /// Called by the harness before it subscribes this view.
    func willSubscribe() {
        record.withLock { record in
            record.expectsRenders = true
            record.isFirstOfSubscription = true
        }
    }

    /// Called by the harness once an unsubscription has returned.
    func didUnsubscribe() {
        record.withLock { $0.expectsRenders = false }
    }

    /// For the concurrent run, where the owner thread subscribes while other threads deliver.
    func allowRepeatedStates() {
        record.withLock { $0.allowsRepeats = true }
    }

    var snapshot: Record {
        record.withLock { $0 }
    }
}

/// A renderer of either a whole state or of a projection of it.
enum AnyProbe: Sendable {
    case whole(ProbeView<Tally>)
    case digest(ProbeView<Digest>)

    var id: Int {
        switch self {
        case .whole(let view): view.id
        case .digest(let view): view.id
        }
    }

    var object: AnyObject {
        switch self {
        case .whole(let view): view
        case .digest(let view): view
        }
    }

    var renders: Int {
        switch self {
        case .whole(let view): view.snapshot.renders
        case .digest(let view): view.snapshot.renders
        }
    }

    var violations: [String] {
        switch self {
        case .whole(let view): view.snapshot.violations
        case .digest(let view): view.snapshot.violations
        }
    }

    /// The value of the last state rendered, if any.
    var lastValue: Int? {
        switch self {
        case .whole(let view): view.snapshot.last?.value
        case .digest(let view): view.snapshot.last?.value
        }
    }

    /// Whether the last render shows `state`: the whole state, or its projection.
    func hasRendered(_ state: Tally) -> Bool {
        switch self {
        case .whole(let view): view.snapshot.last == state
        case .digest(let view): view.snapshot.last == state.digest
        }
    }

    func lastDescription() -> String {
        switch self {
        case .whole(let view): String(describing: view.snapshot.last)
        case .digest(let view): String(describing: view.snapshot.last)
        }
    }

    func willSubscribe() {
        switch self {
        case .whole(let view): view.willSubscribe()
        case .digest(let view): view.willSubscribe()
        }
    }

    func didUnsubscribe() {
        switch self {
        case .whole(let view): view.didUnsubscribe()
        case .digest(let view): view.didUnsubscribe()
        }
    }

    func allowRepeatedStates() {
        switch self {
        case .whole(let view): view.allowRepeatedStates()
        case .digest(let view): view.allowRepeatedStates()
        }
    }

    var echoTarget: PlainTally? {
        switch self {
        case .whole(let view): view.echoTarget
        case .digest(let view): view.echoTarget
        }
    }
}
