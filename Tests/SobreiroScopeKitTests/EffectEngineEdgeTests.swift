import Dispatch
import Foundation
import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import Synchronization
import TestSupport
import Testing

/// A state whose `==` blocks once, on the thread that compares, while `SlowEquality.arm` is set: holds a write
/// inside its transaction, after its claim, under the model's lock.
struct SlowState: ViewState {
    var count = 0
    var log: [Int] = []

    static func == (lhs: SlowState, rhs: SlowState) -> Bool {
        if SlowEquality.armed.exchange(false, ordering: .acquiringAndReleasing) {
            SlowEquality.inside.store(true, ordering: .releasing)
            _ = SlowEquality.release.wait(timeout: .now() + 30)
        }
        return lhs.count == rhs.count && lhs.log == rhs.log
    }
}

final class CallbackView: StatefulView, Sendable {
    let body: @Sendable (Feed) -> Void
    init(_ body: @escaping @Sendable (Feed) -> Void) { self.body = body }
    func render(state: Feed) { body(state) }
}

enum SlowEquality {
    static let armed = Atomic<Bool>(false)
    static let inside = Atomic<Bool>(false)
    static let release = DispatchSemaphore(value: 0)
}

final class SlowModel: ViewModel<SlowState>, ScopedViewModel, @unchecked Sendable {
    let onActive: @MainActor (SlowModel, Activation<SlowModel>) -> Void

    @MainActor
    init(onActive: @escaping @MainActor (SlowModel, Activation<SlowModel>) -> Void) {
        self.onActive = onActive
        super.init(initialState: SlowState())
    }

    func didBecomeActive(_ activation: Activation<SlowModel>) { onActive(self, activation) }
}

@Suite("The effect engine at its edges: stops racing claims, cancels inside transactions, racing polls", .serialized)
@MainActor
struct EffectEngineEdgeTests {
    // R5: user code of a stopped run after stop returned.
    @Test("every(while:): the predicate of a stopped run is not called after the activation ended")
    func everyPredicateAfterEnd() async {
        let entered = Gate<Bool>()
        let release = Gate<Bool>()
        let ended = Atomic<Bool>(false)
        let lateCalls = Atomic<Int>(0)
        let model = FeedModel { _, activation in
            activation.effect(
                .every(
                    .seconds(1),
                    while: { _ in
                        if ended.load(ordering: .acquiring) { lateCalls.add(1, ordering: .relaxed) }
                        return true
                    })
            ) { _ in
                entered.open(true)
                _ = await release.wait(honoursCancellation: false)
                return 1
            } reduce: { state, result in
                state.count += result.get()
            }
        }
        let host = Host(model, clock: TestClock())
        _ = await entered.wait()
        host.deactivate()
        ended.store(true, ordering: .releasing)
        release.open(true)
        await settleEffects(of: model, timeout: patientWait)
        #expect(lateCalls.load(ordering: .relaxed) == 0)
        #expect(model.state.count == 0)
    }

    // No hang: a poll's own write stops it from the delivery on the writer's thread, while it commits.
    @Test("every(while:): its own write stops it, on its thread, then a write elsewhere restarts it", arguments: 0..<5)
    func everyStopsItselfAndRestarts(_ round: Int) async {
        let clock = TestClock()
        let model = FeedModel { _, activation in
            activation.effect(.every(.seconds(1), while: { $0.count < 3 })) { state in
                state.count
            } reduce: { state, result in
                state.count = result.get() + 1
            }
        }
        let host = Host(model, clock: clock)
        for _ in 0..<6 { await clock.advance(by: .seconds(1)) }
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 3, "round \(round)")
        let done = onAnotherThread { model.write { $0.count = 0 } }
        #expect(await signalled(done))
        for _ in 0..<6 { await clock.advance(by: .seconds(1)) }
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 3, "round \(round)")
        host.deactivate()
    }

    // Stop racing a claim: the fold's write is held inside its transaction (by ==), after its claim.
    @Test("elements fold: an end while a write is held in its transaction waits for it, and nothing lands after")
    func elementsEndWhileCommitting() async {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let model = SlowModel { _, activation in
            activation.effect(.elements(of: stream)) { state, value in state.log.append(value) }
        }
        let host = Host(model)
        continuation.yield(1)
        await expectEventually { model.state.log == [1] }
        SlowEquality.armed.store(true, ordering: .releasing)
        continuation.yield(2)
        await expectEventually { SlowEquality.inside.load(ordering: .acquiring) }
        let releaser = onAnotherThread {
            Thread.sleep(forTimeInterval: 0.3)
            SlowEquality.release.signal()
        }
        host.deactivate()
        let afterEnd = model.state.log
        continuation.yield(3)
        _ = await signalled(releaser)
        await settleEffects(of: model, timeout: patientWait)
        #expect(afterEnd == [1, 2])
        #expect(model.state.log == [1, 2])
        SlowEquality.inside.store(false, ordering: .releasing)
    }

    // Stop racing a claim, through EffectInput.cancel on another thread.
    @Test("input: a cancel on another thread while a write-back is held in its transaction waits for it")
    func inputCancelWhileCommitting() async {
        let input = EffectInput<Int>()
        let model = SlowModel { _, activation in
            activation.effect(.input(input)) { value in
                value
            } reduce: { state, result in
                state.log.append(result.get())
            }
        }
        let host = Host(model)
        SlowEquality.armed.store(true, ordering: .releasing)
        input.send(1)
        await expectEventually { SlowEquality.inside.load(ordering: .acquiring) }
        let afterCancel = Locked<[Int]?>(nil)
        let canceller = onAnotherThread {
            input.cancel()
            afterCancel.withLock { $0 = model.state.log }
        }
        let releaser = onAnotherThread {
            Thread.sleep(forTimeInterval: 0.3)
            SlowEquality.release.signal()
        }
        #expect(await signalled(canceller))
        _ = await signalled(releaser)
        await settleEffects(of: model, timeout: patientWait)
        #expect(afterCancel.withLock { $0 } == [1])
        input.send(2)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.log == [1, 2])
        host.deactivate()
        SlowEquality.inside.store(false, ordering: .releasing)
    }

    // EffectInput.cancel from the effect's own reduce, and from a delivery of its own write on the writer thread.
    @Test("input: cancel from its own reduce and from a subscriber on the writer's thread neither hangs nor loses")
    func inputCancelFromInside() async {
        let input = EffectInput<Int>()
        let model = FeedModel { model, activation in
            activation.effect(.input(input)) { value in
                value
            } reduce: { state, result in
                state.count += result.get()
                if state.count == 1 { input.cancel() }
            }
            model.subscribe(
                view: CallbackView { state in
                    if state.count == 3 { input.cancel() }
                }
            ).store(in: activation)
        }
        let host = Host(model)
        input.send(1)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 1)
        input.send(2)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 3)
        input.send(4)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 7)
        host.deactivate()
    }

    // R4: a cancel decided inside a transaction cancels the operation's task there, under the model's lock.
    @Test("input: cancel inside a transaction runs the operation's cancellation handler outside the model's lock")
    func inputCancelInsideTransactionRunsHandlerUnderLock() async {
        let input = EffectInput<Int>()
        let entered = Gate<Bool>()
        let handlerSawLockFree = Locked<Bool?>(nil)
        let modelBox = Locked<FeedModel?>(nil)
        let model = FeedModel { _, activation in
            activation.effect(.input(input)) { value in
                await withTaskCancellationHandler {
                    entered.open(true)
                    try? await Task.sleep(for: .seconds(3600))
                    return value
                } onCancel: {
                    // User code: it runs on the cancelling thread, which must not be inside the model's transaction.
                    let model = modelBox.withLock { $0 }!
                    handlerSawLockFree.withLock { $0 = !model.runsTransactionOnThisThread }
                }
            } reduce: { state, result in
                state.count += result.get()
            }
        }
        modelBox.withLock { $0 = model }
        let host = Host(model)
        input.send(1)
        _ = await entered.wait()
        let done = onAnotherThread {
            model.write { state in
                state.query = "cancelling"
                input.cancel()
            }
        }
        #expect(await signalled(done))
        await settleEffects(of: model, timeout: patientWait)
        #expect(handlerSawLockFree.withLock { $0 } == true)
        host.deactivate()
        modelBox.withLock { $0 = nil }
    }

    // every(while:) under races: no result lands in a state where the predicate fails; stop and restart follow.
    @Test(
        "every(while:): writes racing from other threads never let a poll land where the predicate fails",
        arguments: 0..<3)
    func everyRacingWrites(_ round: Int) async {
        let clock = TestClock()
        let violations = Atomic<Int>(0)
        let model = FeedModel { _, activation in
            activation.effect(.every(.milliseconds(1), while: { $0.query == "on" })) { state in
                state.level
            } reduce: { state, result in
                if state.query != "on" { violations.add(1, ordering: .relaxed) }
                state.count += 1
                state.level = result.get()
            }
        }
        let host = Host(model, clock: clock)
        let togglers = (0..<2).map { t in
            onAnotherThread {
                for i in 0..<3000 { model.write { $0.query = (i + t) % 3 == 0 ? "off" : "on" } }
            }
        }
        for _ in 0..<200 { await clock.advance(by: .milliseconds(1)) }
        for toggler in togglers { #expect(await signalled(toggler)) }
        model.write { $0.query = "off" }
        await settleEffects(of: model, timeout: patientWait)
        let frozen = model.state.count
        for _ in 0..<20 { await clock.advance(by: .milliseconds(1)) }
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == frozen, "round \(round)")
        model.write { $0.query = "on" }
        for _ in 0..<5 { await clock.advance(by: .milliseconds(1)) }
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count > frozen, "round \(round)")
        #expect(violations.load(ordering: .relaxed) == 0, "round \(round)")
        host.deactivate()
    }

    // S7: the tree released while a poll, an input's run and a fold are in flight leaves nothing alive.
    @Test("releasing the tree mid-run frees the model, with every, input and elements in flight")
    func releaseTreeMidRun() async {
        weak var weakModel: FeedModel?
        let entered = Gate<Bool>()
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        do {
            let input = EffectInput<Int>()
            let model = FeedModel { _, activation in
                activation.effect(.every(.seconds(1), while: { $0.level >= 0 })) { _ in
                    entered.open(true)
                    try? await Task.sleep(for: .seconds(3600))
                    return 1
                } reduce: { state, result in
                    state.count += result.get()
                }
                activation.effect(.input(input)) { value in
                    try? await Task.sleep(for: .seconds(3600))
                    return value
                } reduce: { state, result in
                    state.count += result.get()
                }
                activation.effect(.elements(of: stream)) { state, value in state.level = value }
            }
            weakModel = model
            var root: RootScope? = RootScope()
            root!.provide(.testing(clock: TestClock()))
            let behavior = Behavior()
            behavior.bind(model)
            root!.host(behavior)
            input.send(1)
            continuation.yield(1)
            _ = await entered.wait()
            await expectEventually { model.state.level == 1 }
            root = nil
        }
        continuation.yield(2)
        await expectEventually { weakModel == nil }
    }
}
