import Dispatch
import Sobreiro
import SobreiroPrimitives
import TestSupport
import Testing

/// A main-actor view that logs where each render starts and ends, draws the state it was given as its render ends,
/// and marks the mail read when it first shows it.
@MainActor
final class MailView: MainActorStatefulView {
    weak var model: CounterModel?
    var log: [String] = []
    var drawn: Counter?

    func render(state: Counter) {
        log.append("enter \(state.label)")
        if state.label == "mail" { model?.rename("mail+read") }
        drawn = state
        log.append("exit \(state.label)")
    }
}

// Each test writes on another thread while the main queue is held, so the hand-over is queued behind the test's
// own job; the test then acts on the main actor, and only then lets the main queue run.
@Suite("Main-actor hop")
@MainActor
struct MainActorHopTests {
    @Test("D5: a main-actor render that writes back gets the new state after it returns, never inside itself")
    func renderWritingBackIsNotNested() async {
        let model = CounterModel()
        let view = MailView()
        view.model = model
        model.subscribe(view: view)

        #expect(runElsewhereHoldingMainQueue { model.rename("mail") })
        await drainMainQueue()

        #expect(view.log == ["enter ", "exit ", "enter mail", "exit mail", "enter mail+read", "exit mail+read"])
        #expect(view.drawn == model.state)
    }

    @Test("D5: a main-actor handler that writes back to the model it follows is never nested in itself")
    func handlerWritingBackIsNotNested() async {
        let source = CounterModel()
        let follower = CounterModel()
        var log: [String] = []
        var last: Counter?
        follower.subscribe(to: source) { @MainActor [weak source] state in
            log.append("enter \(state.label)")
            if state.label == "mail" { source?.rename("mail+read") }
            last = state
            log.append("exit \(state.label)")
        }

        #expect(runElsewhereHoldingMainQueue { source.rename("mail") })
        await drainMainQueue()

        #expect(log == ["enter ", "exit ", "enter mail", "exit mail", "enter mail+read", "exit mail+read"])
        #expect(last == source.state)
    }

    @Test("R5: a render waiting for the main actor is dropped when its subscription is cancelled first")
    func cancelledSubscriptionDropsWaitingRender() async {
        let model = CounterModel()
        let label = MainLabel()
        let subscription = model.subscribe(view: label)

        #expect(runElsewhereHoldingMainQueue { model.increment() })
        subscription.cancel()
        await drainMainQueue()

        #expect(label.rendered == [Counter()])
    }

    @Test("R5: a main-actor handler waiting for the main actor is dropped when its model stops following first")
    func unsubscribedHandlerDropsWaitingCall() async {
        let source = CounterModel()
        let follower = CounterModel()
        var received: [Counter] = []
        follower.subscribe(to: source) { @MainActor state in received.append(state) }

        #expect(runElsewhereHoldingMainQueue { source.increment() })
        follower.unsubscribe(from: source)
        await drainMainQueue()

        #expect(received == [Counter()])
    }

    @Test("V4: a main-actor view whose model is released while a render waits still ends on the model's last state")
    func releasedModelStillRendersItsLastState() async {
        var model: CounterModel? = CounterModel()
        weak let released = model
        let label = MainLabel()
        model?.subscribe(view: label)

        let wrote = runElsewhereHoldingMainQueue { [weak model] in model?.increment() }
        model = nil
        #expect(wrote)
        #expect(released == nil)
        await drainMainQueue()

        #expect(label.rendered == [Counter(count: 0), Counter(count: 1)])
    }
}
