import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import Synchronization
import TestSupport
import Testing

/// A clock whose first sleep reports that it was reached, then returns normally once the test releases it, even if
/// the sleeping task was cancelled meanwhile: the interleaving where a deadline passes, the sleep returns, and the
/// activation ends before the sleeping task runs on. Every later sleep waits for cancellation.
final class GateClock: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant
    let base = ContinuousClock()
    let entered = Gate<Bool>()
    let release = Gate<Bool>()
    private let sleeps = Atomic<Int>(0)

    var now: Instant { base.now }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        if sleeps.add(1, ordering: .relaxed).newValue == 1 {
            entered.open(true)
            _ = await release.wait(honoursCancellation: false)
            return
        }
        try await Task.sleep(for: .seconds(3600))
    }
}

/// A model hosted under a root that provides `clock`, and the test kit's view of its effects.
@MainActor
struct ClockHost {
    let root = RootScope()
    let behavior = Behavior()

    init(_ model: some ScopedViewModel, clock: any Clock<Duration>) {
        root.provide(
            DependencyValues().with(ClockKey.self, clock).with(EffectTrackingKey.self, TestEffectTracking.shared))
        behavior.bind(model)
        root.host(behavior)
    }
}

@MainActor
final class ActivationBox {
    var activation: Activation<FeedModel>?
}

@Suite("Effect triggers at the edges: waits that return as the activation ends, kept activations, leaks")
@MainActor
struct EffectTriggerEdgeTests {
    // MARK: An operation after a wait that returned as the activation ended (R5)

    @Test("every(startingNow: false), run-only: a tick whose sleep returned as the activation ended runs no operation")
    func everyTimerRunOnlyAfterEnd() async {
        let clock = GateClock()
        let ran = RunLog()
        let model = FeedModel { _, activation in
            activation.effect(.every(.seconds(1), startingNow: false)) { _ in
                ran.record("operation ran, cancelled: \(Task.isCancelled)")
            }
        }
        let host = ClockHost(model, clock: clock)
        _ = await clock.entered.wait()
        host.behavior.detach()
        #expect(model.state == Feed())
        clock.release.open(true)
        await settleEffects(of: model, timeout: patientWait)
        #expect(ran.all.isEmpty)
    }

    @Test("every(startingNow: false) with reduce: the operation does not start after the activation ended")
    func everyTimerReduceAfterEnd() async {
        let clock = GateClock()
        let ran = RunLog()
        let model = FeedModel { _, activation in
            activation.effect(.every(.seconds(1), startingNow: false)) { _ in
                ran.record("operation ran, cancelled: \(Task.isCancelled)")
                return 1
            } reduce: { state, result in
                state.count += result.get()
            }
        }
        let host = ClockHost(model, clock: clock)
        _ = await clock.entered.wait()
        host.behavior.detach()
        clock.release.open(true)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 0)
        #expect(ran.all.isEmpty)
    }

    @Test("debounced onChange, run-only: a run whose wait returned as the activation ended runs no operation")
    func debouncedRunOnlyAfterEnd() async {
        let clock = GateClock()
        let ran = RunLog()
        let model = FeedModel { _, activation in
            activation.effect(.onChange(of: \.query), timing: .debounced(for: .milliseconds(300))) { query in
                ran.record("search '\(query)', cancelled: \(Task.isCancelled)")
            }
        }
        let host = ClockHost(model, clock: clock)
        _ = await clock.entered.wait()
        host.behavior.detach()
        clock.release.open(true)
        await settleEffects(of: model, timeout: patientWait)
        #expect(ran.all.isEmpty)
    }

    @Test("debounced input: a run whose wait returned as the activation ended runs no operation")
    func debouncedInputAfterEnd() async {
        let clock = GateClock()
        let ran = RunLog()
        let input = EffectInput<String>()
        let model = FeedModel { _, activation in
            activation.effect(.input(input), timing: .debounced(for: .milliseconds(300))) { value in
                ran.record("upload '\(value)', cancelled: \(Task.isCancelled)")
                return value
            } reduce: { state, result in
                state.query = result.get()
            }
        }
        let host = ClockHost(model, clock: clock)
        input.send("a")
        _ = await clock.entered.wait()
        host.behavior.detach()
        clock.release.open(true)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.query == "")
        #expect(ran.all.isEmpty)
    }

    @Test("every(startingNow: true) with a predicate: no operation once the activation ended before the first tick ran")
    func everyPollFirstTickAfterEnd() async {
        let hold = Hold()
        let calls = Atomic<Int>(0)
        let ran = RunLog()
        let model = FeedModel { _, activation in
            activation.effect(
                .every(
                    .seconds(1),
                    while: { _ in
                        // The first call is the subscription's, on the main actor; the second is the first tick's.
                        if calls.add(1, ordering: .relaxed).newValue == 2 { hold.holdOnce() }
                        return true
                    })
            ) { _ in
                ran.record("poll ran, cancelled: \(Task.isCancelled)")
            }
        }
        let host = Host(model, clock: TestClock())
        #expect(await hold.isHeld())
        host.deactivate()
        hold.release()
        await settleEffects(of: model, timeout: patientWait)
        #expect(ran.all.isEmpty)
    }

    // MARK: A kept activation

    @Test("an activation that its model keeps ends when its tree is released: its effects stop and it refuses new ones")
    func keptActivationEndsWithItsTree() async {
        let box = ActivationBox()
        let ticks = RunLog()
        let clock = TestClock()
        do {
            let model = FeedModel { _, activation in
                box.activation = activation
                activation.effect(.every(.seconds(1))) { _ in ticks.record("tick") }
            }
            let root = RootScope()
            root.provide(.testing(clock: clock))
            let behavior = Behavior()
            behavior.bind(model)
            root.host(behavior)
            await settleEffects(of: model, timeout: patientWait)
            #expect(ticks.all == ["tick"])
        }
        #expect(box.activation?.isActive == false)
        await clock.advance(by: .seconds(5))
        #expect(ticks.all == ["tick"])
        let started = box.activation?.effect(.onChange(of: \.query), timing: .debounced(for: .seconds(1))) { _ in }
        #expect(started == false)
        // The box keeps the activation, which keeps the model, whose closure keeps the box: the test's own cycle.
        box.activation = nil
    }

    // MARK: Elements given to run + reduce

    @Test("elements, run + reduce, continueOnNewState: nothing written after the activation ends")
    func elementsRunReduceNoWriteAfterEnd() async {
        let scores = Broadcast<Int>()
        let entered = Gate<Bool>()
        let release = Gate<Bool>()
        let model = FeedModel { _, activation in
            activation.effect(.elements(of: scores.stream()), strategy: .continueOnNewState) { element in
                entered.open(true)
                _ = await release.wait(honoursCancellation: false)
                return (try? element.get()) ?? 0
            } reduce: { state, result in
                state.count += result.get()
            }
        }
        let host = Host(model)
        scores.send(5)
        _ = await entered.wait()
        host.deactivate()
        release.open(true)
        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(model.state.count == 0)
        #expect(scores.ended == 1)
    }

    @Test("elements, run + reduce: settling waits for the write-back of the last element", arguments: 0..<20)
    func elementsRunReduceSettles(_ round: Int) async {
        let scores = Broadcast<Int>()
        let model = FeedModel { _, activation in
            activation.effect(.elements(of: scores.stream()), strategy: .continueOnNewState) { element in
                await Task.yield()
                return (try? element.get()) ?? 0
            } reduce: { state, result in
                state.count += result.get()
            }
        }
        let host = Host(model)
        for points in [1, 2, 4] { scores.send(points) }
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 7, "round \(round)")
        host.deactivate()
    }

    @Test("elements, run-only under a TestHost: the test ends cleanly after the sequence finishes")
    func elementsRunOnlyTestHost() async {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let ran = RunLog()
        let host = TestHost(
            FeedModel { _, activation in
                activation.effect(.elements(of: stream)) { value in ran.record("\(value)") }
            })
        continuation.yield(1)
        await host.settleEffects()
        continuation.yield(2)
        continuation.finish()
        await host.settleEffects()
        #expect(ran.all.last == "2")
    }

    // MARK: A timer

    @Test(
        "every as a timer: first tick one interval after start, stops with the predicate, restarts a full interval later"
    )
    func everyTimerRestart() async {
        let clock = TestClock()
        let model = FeedModel { _, activation in
            activation.effect(.every(.seconds(1), while: { $0.query == "on" }, startingNow: false)) { state, _ in
                state.count += 1
            }
        }
        let host = Host(model, clock: clock)
        model.write { $0.query = "on" }
        await clock.advance(by: .milliseconds(999))
        #expect(model.state.count == 0)
        await clock.advance(by: .milliseconds(1))
        #expect(model.state.count == 1)
        await clock.advance(by: .milliseconds(500))
        model.write { $0.query = "off" }
        await clock.advance(by: .seconds(3))
        #expect(model.state.count == 1)
        model.write { $0.query = "on" }
        await clock.advance(by: .milliseconds(999))
        #expect(model.state.count == 1)
        await clock.advance(by: .milliseconds(1))
        #expect(model.state.count == 2)
        host.deactivate()
    }

    // MARK: Leaks: a sequence that ignores cancellation

    @Test(
        "elements: a sequence that ignores cancellation keeps no model alive once the tree is released",
        arguments: [false, true])
    func elementsIgnoringCancellationLeak(driven: Bool) async {
        weak var weakModel: FeedModel?
        let stuck = StuckSequence()
        do {
            let model = FeedModel { _, activation in
                if driven {
                    activation.effect(.elements(of: stuck)) { value in
                        value
                    } reduce: { state, result in
                        state.count = result.get()
                    }
                } else {
                    activation.effect(.elements(of: stuck)) { state, value in state.count = value }
                }
            }
            weakModel = model
            var root: RootScope? = RootScope()
            let behavior = Behavior()
            behavior.bind(model)
            root!.host(behavior)
            _ = await stuck.entered.wait()
            root = nil
        }
        #expect(weakModel == nil, "driven: \(driven)")
        // Lets the iteration return, so that its task and what it holds go before the process ends.
        stuck.never.open(true)
    }
}

/// A sequence whose iterator waits forever for its first element and ignores cancellation, as a badly behaved
/// socket does.
struct StuckSequence: AsyncSequence, Sendable {
    typealias Element = Int
    typealias Failure = Never
    let entered = Gate<Bool>()
    let never = Gate<Bool>()

    struct Iterator: AsyncIteratorProtocol {
        let sequence: StuckSequence
        mutating func next() async -> Int? {
            sequence.entered.open(true)
            _ = await sequence.never.wait(honoursCancellation: false)
            return nil
        }
        mutating func next(isolation actor: isolated (any Actor)?) async -> Int? {
            await next()
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }
}
