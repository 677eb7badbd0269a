import Dispatch
import Sobreiro
import TestSupport
import Testing

/// A main-actor view is never called inside its own call, whichever hop the nested value comes through.
@Suite("Main-actor views are never re-entered")
@MainActor
struct MainActorReentryTests {
    @Test(
        "D5: a main-actor view following two models, whose render of one writes the other, is never rendered inside itself"
    )
    func mainActorViewTwoModels() async {
        let m1 = CounterModel()
        let m2 = CounterModel()
        let view = HookedView()
        view.onRender = { state in if state.count == 1 && state.label.isEmpty { m2.rename("x") } }
        m1.subscribe(view: view)
        m2.subscribe(view: view)
        m1.increment()  // on the main actor: renders at once, and the render writes m2
        await drainMainQueue()
        #expect(
            !view.log.starts(with: ["enter 0", "exit 0", "enter 0", "exit 0", "enter 1", "enter 0x"]),
            "the view was rendered inside its own render")
        #expect(deepestRender(in: view.log) == 1, "rendered inside its own render: \(view.log)")
        view.onRender = { _ in }
    }

    @Test("D5: a main-actor view that subscribes itself again from its render, then writes, is not re-entered")
    func mainActorResubscribeThenWrite() async {
        let model = CounterModel()
        let view = HookedView()
        var once = false
        view.onRender = { state in
            guard state.count == 1, !once else { return }
            once = true
            model.unsubscribe(view: view)
            model.subscribe(view: view)
            model.increment()  // on the main actor, which is not delivering: it becomes the deliverer
        }
        model.subscribe(view: view)
        #expect(runElsewhereHoldingMainQueue { model.increment() })
        await drainMainQueue()
        await drainMainQueue()
        #expect(deepestRender(in: view.log) == 1, "rendered inside its own render: \(view.log)")
        #expect(view.rendered.last == model.state)
        view.onRender = { _ in }
    }

    @Test("D5: a main-actor view that subscribes itself again inside a transaction in its render is not re-entered")
    func mainActorResubscribeInTransaction() async {
        let model = CounterModel()
        let view = HookedView()
        var once = false
        view.onRender = { state in
            guard state.count == 1, !once else { return }
            once = true
            model.write {
                model.unsubscribe(view: view)
                model.subscribe(view: view)
            }
        }
        model.subscribe(view: view)
        #expect(runElsewhereHoldingMainQueue { model.increment() })
        await drainMainQueue()
        await drainMainQueue()
        #expect(view.log == ["enter 0", "exit 0", "enter 1", "exit 1", "enter 1", "exit 1"])
        view.onRender = { _ in }
    }
}

/// How deep renders went inside each other, from a log of "enter …" and "exit …" entries: 1 when none nested.
private func deepestRender(in log: [String]) -> Int {
    var depth = 0
    var deepest = 0
    for entry in log {
        depth += entry.hasPrefix("enter") ? 1 : -1
        deepest = max(deepest, depth)
    }
    return deepest
}
