import Dispatch
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// A main-actor view that logs where each render starts and ends and runs a hook inside each render.
@MainActor
final class HookedView: MainActorStatefulView {
    var log: [String] = []
    var rendered: [Counter] = []
    var onRender: (Counter) -> Void = { _ in }

    func render(state: Counter) {
        log.append("enter \(state.count)\(state.label)")
        rendered.append(state)
        onRender(state)
        log.append("exit \(state.count)\(state.label)")
    }
}

/// A plain view whose render of `blockAt` blocks its (background) deliverer until the test releases it.
final class GateView: StatefulView, @unchecked Sendable {
    let blockAt: Int
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    init(blockAt: Int) { self.blockAt = blockAt }
    func render(state: Counter) {
        guard state.count == blockAt else { return }
        entered.signal()
        _ = release.wait(timeout: .now() + patience)
    }
}

/// Counts its own deallocation.
final class Canary: Sendable {
    let freed: RenderLog
    init(_ freed: RenderLog) { self.freed = freed }
    deinit { freed.record() }
}

/// A value whose deinit runs a hook: used to see where the hop lets go of values.
final class DeinitProbe: @unchecked Sendable {
    let onDeinit: @Sendable () -> Void
    init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

struct ProbeValue: Equatable, Sendable {
    let id: Int
    let probe: DeinitProbe
    static func == (lhs: ProbeValue, rhs: ProbeValue) -> Bool { lhs.id == rhs.id }
}

@Suite("Main-actor hop: wake-ups, order, re-entrancy and lifetimes")
@MainActor
struct MainActorHopEdgeTests {
    @Test("Lost wake-up: a background write while the hop's block is inside the handler still arrives")
    func backgroundWriteDuringDrain() async {
        let model = CounterModel()
        let view = HookedView()
        var injected = false
        view.onRender = { state in
            guard state.count == 1, !injected else { return }
            injected = true
            // The block has taken the last waiting value: this write finds the buffer empty.
            #expect(runElsewhereHoldingMainQueue { model.increment() })
        }
        model.subscribe(view: view)

        #expect(runElsewhereHoldingMainQueue { model.increment() })
        await drainMainQueue()
        await drainMainQueue()

        #expect(view.rendered.map(\.count) == [0, 1, 2])
        #expect(view.rendered.last == model.state)
    }

    @Test("Lost wake-up: background then main write inside the handler: ends on the main one, not nested")
    func backgroundThenMainWriteDuringDrain() async {
        let model = CounterModel()
        let view = HookedView()
        var injected = false
        view.onRender = { state in
            guard state.count == 1, !injected else { return }
            injected = true
            #expect(runElsewhereHoldingMainQueue { model.increment() })
            model.increment()  // main becomes the deliverer: nested arrival, displaces the waiting 2
        }
        model.subscribe(view: view)

        #expect(runElsewhereHoldingMainQueue { model.increment() })
        await drainMainQueue()
        await drainMainQueue()

        #expect(view.log == ["enter 0", "exit 0", "enter 1", "exit 1", "enter 3", "exit 3"])
        #expect(view.rendered.last == model.state)
    }

    @Test("D5: a main-actor view that unsubscribes and subscribes itself from its render is not re-entered")
    func resubscribeInsideRender() async {
        let model = CounterModel()
        let view = HookedView()
        var once = false
        view.onRender = { state in
            guard state.count == 1, !once else { return }
            once = true
            model.unsubscribe(view: view)
            model.subscribe(view: view)
        }
        model.subscribe(view: view)
        #expect(runElsewhereHoldingMainQueue { model.increment() })
        await drainMainQueue()

        // The new subscription's first render waits for the main queue, after the render that made it.
        #expect(view.log == ["enter 0", "exit 0", "enter 1", "exit 1", "enter 1", "exit 1"])
        #expect(view.rendered.last == model.state)
        view.onRender = { _ in }  // it captured the view itself
    }

    @Test("Cross-model: B's render writes N, A's render (on N) writes M, which B follows: B never nests")
    func crossModelWriteFromAnotherRender() async {
        let modelM = CounterModel()
        let modelN = CounterModel()
        let viewA = HookedView()
        let viewB = HookedView()
        viewA.onRender = { state in if state.count == 1 { modelM.rename("from A") } }
        viewB.onRender = { state in if state.count == 1 && state.label.isEmpty { modelN.increment() } }
        modelN.subscribe(view: viewA)
        modelM.subscribe(view: viewB)

        #expect(runElsewhereHoldingMainQueue { modelM.increment() })
        await drainMainQueue()

        #expect(viewB.log == ["enter 0", "exit 0", "enter 1", "exit 1", "enter 1from A", "exit 1from A"])
        #expect(viewB.rendered.last == modelM.state)
        #expect(viewA.rendered.last == modelN.state)
    }

    @Test("V1, V4: connect while another thread delivers renders at once, and never an older state later")
    func connectWhileBackgroundDelivers() async {
        let model = CounterModel()
        let gate = GateView(blockAt: 1)
        model.subscribe(view: gate)
        let written = onAnotherThread {
            model.increment()  // this thread delivers, and blocks in the gate's render of 1
        }
        await expectSignalled(gate.entered)

        let view = HookedView()
        let token = model.subscribe(view: view)
        #expect(view.rendered.map(\.count) == [1], "the subscribing thread renders the current state itself")
        model.increment()  // asks the blocked deliverer for another round, and renders the main-actor view itself
        #expect(view.rendered.map(\.count) == [1, 2], "a main-actor write reaches the view before it returns")
        gate.release.signal()
        await expectSignalled(written)
        await drainMainQueue()

        #expect(view.rendered.map(\.count) == [1, 2])
        #expect(!token.isCancelledForTest)
    }

    @Test("Leak: after cancel with a value waiting, the handler's captures are freed once the queue drains")
    func noLeakAfterCancelWithWaitingValue() async {
        let freed = RenderLog()
        var source: CounterModel? = CounterModel()
        let follower = CounterModel()
        do {
            let canary = Canary(freed)
            var token: StateSubscription? = follower.subscribe(to: source!) { @MainActor _ in _ = canary }
            weak let weakSource = source
            let wrote = runElsewhereHoldingMainQueue { weakSource?.increment() }
            #expect(wrote)
            token?.cancel()
            token = nil
        }
        source = nil
        await drainMainQueue()
        #expect(freed.count == 1)
    }

    @Test("Leak: a model released while a value waits frees its handler once the value is handed over")
    func noLeakAfterModelReleasedWithWaitingValue() async {
        let freed = RenderLog()
        var received: [Int] = []
        var source: CounterModel? = CounterModel()
        let follower = CounterModel()
        do {
            let canary = Canary(freed)
            follower.subscribe(to: source!) { @MainActor state in
                _ = canary
                received.append(state.count)
            }
            weak let weakSource = source
            let wrote = runElsewhereHoldingMainQueue { weakSource?.increment() }
            #expect(wrote)
        }
        source = nil
        #expect(freed.count == 0, "the waiting value holds the subscription")
        await drainMainQueue()
        #expect(received == [0, 1])
        #expect(freed.count == 1)
    }

    @Test("MainQueue.isCurrent holds on Swift Testing's main actor, in a main-actor task and in a main-queue block")
    func mainQueueIsCurrentOnTheMainActor() async {
        #expect(MainQueue.isCurrent)
        let inTask = await Task { @MainActor in MainQueue.isCurrent }.value
        #expect(inTask)
        let inBlock = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: MainQueue.isCurrent) }
        }
        #expect(inBlock)
        let elsewhere = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: MainQueue.isCurrent) }
        }
        #expect(!elsewhere)
    }

    @Test("A write in a main-actor task after a suspension renders synchronously")
    func mainActorTaskWriteIsSynchronous() async {
        let model = CounterModel()
        let view = HookedView()
        model.subscribe(view: view)
        await Task.yield()
        model.increment()
        #expect(view.rendered.map(\.count) == [0, 1])
    }

    @Test("A write on a serial queue that targets the main queue renders there without trapping")
    func queueTargetingMain() async {
        let model = CounterModel()
        let view = HookedView()
        model.subscribe(view: view)
        let queue = DispatchQueue(label: "targets main", target: .main)
        await withCheckedContinuation { continuation in
            queue.async {
                model.increment()
                continuation.resume()
            }
        }
        #expect(view.rendered.map(\.count) == [0, 1])
    }

    @Test("No deinit under the hop's lock: a displaced value's deinit may deliver to the same hop")
    func displacedValueDeinitReentersHop() async {
        let hop = MainActorStateHop<ProbeValue>(target: nil) { _, _ in }
        let reentered = RenderLog()
        await expectCompletes {
            // Passed as a temporary, so that the buffer holds the only copy once `receive` returns.
            hop.receive(
                ProbeValue(
                    id: 1,
                    probe: DeinitProbe {
                        reentered.record()
                        hop.receive(ProbeValue(id: 3, probe: DeinitProbe {}))
                    }))
            hop.receive(ProbeValue(id: 2, probe: DeinitProbe {}))
        }
        #expect(reentered.count == 1)
    }
}

extension StateSubscription {
    fileprivate var isCancelledForTest: Bool { hasEnded }
}

/// Tells, from its deinit, whether another thread could write `model` at that moment: a write from another thread
/// that does not finish means the deinit ran under the model's lock.
final class LockProbe: Sendable {
    let model: CounterModel
    let ranUnderLock: RenderLog
    init(_ model: CounterModel, ranUnderLock: RenderLog) {
        self.model = model
        self.ranUnderLock = ranUnderLock
    }
    deinit {
        let model = model
        // A thread of its own, which needs no thread of the pool; the wait is a safety net, so that a loaded
        // machine is not mistaken for a held lock: a held lock never lets go.
        let done = onAnotherThread { model.rename("probe") }
        if done.wait(timeout: .now() + patience) == .timedOut { ranUnderLock.record() }
    }
}

@Suite("Main-actor hop, release of handlers")
@MainActor
struct MainActorHopReleaseTests {
    /// Subscribing again keeps the live subscription (see `StateSource`): the main-actor handler passed the second
    /// time is the one let go of.
    @Test("A main-actor handler that subscribing again does not keep is released after the model's lock, not under it")
    func handlerNotKeptReleasedOutsideModelLock() async {
        let source = CounterModel()
        let follower = CounterModel()
        let ranUnderLock = RenderLog()
        follower.subscribe(to: source) { @MainActor _ in }
        do {
            let probe = LockProbe(source, ranUnderLock: ranUnderLock)
            follower.subscribe(to: source) { @MainActor _ in _ = probe }  // kept out: the live subscription stays
        }
        await drainMainQueue()
        // The probe's deinit renames the source: it ran, so the handler holding it was let go of.
        #expect(source.state.label == "probe", "the handler not kept was let go of")
        #expect(ranUnderLock.count == 0)
    }

    @Test("An unsubscribed main-actor handler is released after the model's lock, not under it")
    func unsubscribedHandlerReleasedOutsideModelLock() async {
        let source = CounterModel()
        let follower = CounterModel()
        let ranUnderLock = RenderLog()
        do {
            let probe = LockProbe(source, ranUnderLock: ranUnderLock)
            follower.subscribe(to: source) { @MainActor _ in _ = probe }
        }
        follower.unsubscribe(from: source)
        await drainMainQueue()
        #expect(ranUnderLock.count == 0)
    }
}

@Suite("Main-actor hop, stress for ThreadSanitizer")
@MainActor
struct MainActorHopStressTests {
    @Test("Background writers, main-queue writes and drains: the view always ends on the model's last state")
    func writersAndMainWrites() async {
        for _ in 0..<50 {
            let model = CounterModel()
            let view = HookedView()
            view.onRender = { state in if state.count % 7 == 0 { model.rename("r\(state.count)") } }
            let token = model.subscribe(view: view)
            let group = DispatchGroup()
            for _ in 0..<3 {
                DispatchQueue.global().async(group: group) { @Sendable in
                    for _ in 0..<50 { model.increment() }
                }
            }
            for _ in 0..<20 {
                model.increment()
                await Task.yield()
            }
            await withCheckedContinuation { continuation in
                group.notify(queue: .global()) { @Sendable in continuation.resume() }
            }
            await drainMainQueue()
            await drainMainQueue()
            #expect(view.rendered.last == model.state)
            let nested = view.log.indices.contains { index in
                index > 0 && view.log[index].hasPrefix("enter") && view.log[index - 1].hasPrefix("enter")
            }
            #expect(!nested)
            token.cancel()
        }
    }
}
