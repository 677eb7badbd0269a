import Dispatch
import Sobreiro
import SobreiroPrimitives
import TestSupport
import Testing

private struct Refusal: Error {}

/// The kinds of the events about `subject` reported while `body` runs.
private func kinds(
    about subject: AnyObject,
    isolation: isolated (any Actor)? = #isolation,
    during body: () async -> Void
) async -> [TraceEvent.Kind] {
    let collected = Locked<[TraceEvent.Kind]>([])
    let id = ObjectIdentifier(subject)
    Trace.install { event in
        guard event.subject == id else { return }
        collected.withLock { $0.append(event.kind) }
    }
    await body()
    Trace.uninstall()
    return collected.withLock { $0 }
}

/// A view whose render of `pausingAt` waits for the test.
private final class PausingView: StatefulView, @unchecked Sendable {
    let pausingAt: Int
    let entered = DispatchSemaphore(value: 0)
    let released = DispatchSemaphore(value: 0)
    init(pausingAt: Int) { self.pausingAt = pausingAt }
    func render(state: Feed) {
        guard state.count == pausingAt else { return }
        entered.signal()
        _ = released.wait(timeout: .now() + patience)
    }
}

extension TraceTests {
    @Test("each outcome of a transaction is reported once, with no subscriber to deliver to")
    func outcomesWithoutSubscribers() async {
        let model = ViewModel(initialState: Feed())
        let reported = await kinds(about: model) {
            model.write { $0.count = 1 }
            model.write { $0.count = 1 }
            try? model.write { (state: borrowing Draft<Feed>) throws(Refusal) in
                state.count = 5
                throw Refusal()
            }
            model.write { state in
                state.count = 2
                try? model.write { (_: borrowing Draft<Feed>) throws(Refusal) in throw Refusal() }
            }
        }
        #expect(reported == [.committed, .deduplicated, .rolledBack, .committed])
        #expect(model.state.count == 2)
    }

    @Test("a commit that another thread's deliverer takes over is reported once, before that delivery")
    func outcomesWhileAnotherThreadDelivers() async {
        let model = ViewModel(initialState: Feed())
        let view = PausingView(pausingAt: 1)
        model.subscribe(view: view)
        let reported = await kinds(about: model) {
            let writer = onAnotherThread { model.write { $0.count = 1 } }
            guard await signalled(view.entered) else {
                Issue.record("the render never paused")
                return
            }
            model.write { $0.count = 2 }
            model.write { $0.count = 2 }
            try? model.write { (_: borrowing Draft<Feed>) throws(Refusal) in throw Refusal() }
            view.released.signal()
            await expectSignalled(writer)
        }
        #expect(
            reported == [
                .committed, .delivered(to: "PausingView"), .committed, .deduplicated, .rolledBack,
                .delivered(to: "PausingView"),
            ])
    }
}
