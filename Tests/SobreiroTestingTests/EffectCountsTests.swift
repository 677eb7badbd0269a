import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

/// The counts and waits behind `settleEffects(of:)` and `TestClock`, stepped by hand: no thread, no task, no queue.
@Suite("Effect counts")
struct EffectCountsTests {
    @Test("with nothing running, stopped holds at once, and settled only once the main queue has been probed")
    func idle() {
        var counts = EffectCounts<String>()
        #expect(counts.holds(.stopped))
        #expect(!counts.holds(.settled))
        #expect(counts.isWaitingForMainQueue)
        #expect(counts.startProbe() == nil, "no one waits for settling: no probe")

        _ = counts.addWaiter("settle", until: .settled)
        let probe = counts.startProbe()
        #expect(probe != nil)
        #expect(counts.startProbe() == nil, "one probe at a time")
        #expect(counts.takeReady().isEmpty)

        counts.probeRan(in: probe!)
        #expect(counts.holds(.settled))
        #expect(counts.takeReady() == ["settle"])
        #expect(!counts.hasWaiters)
    }

    @Test("a running operation is unsettled until it parks, and settling needs a probe after the last change")
    func parking() {
        var counts = EffectCounts<String>()
        counts.begin()
        let operation = counts.enter()
        _ = counts.addWaiter("settle", until: .settled)
        _ = counts.addWaiter("stop", until: .stopped)
        #expect(counts.startProbe() == nil, "not quiet: nothing to probe yet")
        #expect(counts.takeReady().isEmpty)

        counts.park(operation)
        #expect(counts.isQuiet)
        let probe = counts.startProbe()!
        counts.probeRan(in: probe)
        #expect(counts.takeReady() == ["settle"])

        counts.unpark(operation)
        counts.leave(operation)
        counts.end()
        #expect(counts.takeReady() == ["stop"])
        #expect(counts.running == 0 && counts.parked == 0)
    }

    @Test("a probe that ran after a change does not settle: the change may have queued a job behind it")
    func staleProbe() {
        var counts = EffectCounts<Int>()
        counts.begin()
        let operation = counts.enter()
        counts.park(operation)
        _ = counts.addWaiter(1, until: .settled)
        let stale = counts.startProbe()!
        counts.unpark(operation)
        counts.park(operation)
        counts.probeRan(in: stale)
        #expect(!counts.holds(.settled))
        #expect(counts.isWaitingForMainQueue)

        let fresh = counts.startProbe()!
        #expect(fresh != stale)
        counts.probeRan(in: fresh)
        #expect(counts.takeReady() == [1])
    }

    @Test("a queued job keeps the counts from being quiet, though every operation is parked")
    func jobs() {
        var counts = EffectCounts<Int>()
        counts.begin()
        counts.park(counts.enter())
        counts.jobQueued()
        #expect(!counts.isQuiet)
        #expect(counts.jobs == 1)
        counts.jobReturned()
        #expect(counts.isQuiet)
    }

    @Test("an operation that sleeps in two child tasks is quiet only once both have parked")
    func twoSleeps() {
        var counts = EffectCounts<Int>()
        counts.begin()
        let operation = counts.enter()
        counts.jobQueued()
        counts.jobQueued()
        counts.park(operation)
        counts.jobReturned()
        #expect(!counts.isQuiet, "one child task has not reached the clock yet")
        counts.park(operation)
        counts.jobReturned()
        #expect(counts.isQuiet)
    }

    @Test("an operation that sleeps twice at once is parked once, and until its last sleep ends")
    func twoSleepsParkOnce() {
        var counts = EffectCounts<Int>()
        counts.begin()
        let operation = counts.enter()
        counts.park(operation)
        counts.park(operation)
        #expect(counts.parked == 1, "one operation, however many of its children sleep")
        #expect(counts.isQuiet)

        counts.unpark(operation)
        #expect(counts.parked == 1, "its other child still sleeps")
        #expect(counts.isQuiet)
        counts.unpark(operation)
        #expect(counts.parked == 0)
        #expect(!counts.isQuiet, "awake, the operation runs")
        counts.unpark(operation)
        #expect(counts.parked == 0, "a wait that never started does not end")
    }

    @Test("an operation asleep in two child tasks does not hide another operation that runs")
    func twoSleepsHideNoOne() {
        var counts = EffectCounts<String>()
        counts.begin()
        let race = counts.enter()
        counts.park(race)
        counts.park(race)
        counts.begin()
        _ = counts.enter()
        _ = counts.addWaiter("settle", until: .settled)
        #expect(counts.running == 2 && counts.parked == 1)
        #expect(!counts.isQuiet, "the second operation runs, unparked")
        #expect(counts.startProbe() == nil, "not quiet: nothing to probe")
        #expect(counts.takeReady().isEmpty)
    }

    @Test("a wait that outlives its operation's body parks nothing, from its start or its end")
    func waitsAfterLeaving() {
        var counts = EffectCounts<Int>()
        counts.begin()
        let operation = counts.enter()
        counts.park(operation)
        counts.leave(operation)
        #expect(counts.parked == 0, "the body returned: its write-back runs, unparked")
        counts.park(operation)
        #expect(counts.parked == 0)
        counts.unpark(operation)
        counts.unpark(operation)
        #expect(counts.parked == 0)
        counts.end()
        #expect(counts.holds(.stopped))
    }

    @Test("a removed waiter is not given back; the others come back in the order they came")
    func removal() {
        var counts = EffectCounts<String>()
        let first = counts.addWaiter("first", until: .stopped)
        _ = counts.addWaiter("second", until: .stopped)
        _ = counts.addWaiter("third", until: .stopped)
        #expect(counts.removeWaiter(first) == "first")
        #expect(counts.removeWaiter(first) == nil)
        #expect(counts.takeReady() == ["second", "third"])
    }

    @Test("quiet holds once every running operation is parked and no job is queued, with no probe of the main queue")
    func quiet() {
        var counts = EffectCounts<String>()
        counts.begin()
        counts.begin()
        let parked = counts.enter()
        let running = counts.enter()
        counts.park(parked)
        #expect(!counts.isQuiet, "one operation still runs")

        counts.leave(running)
        counts.end()
        counts.jobQueued()
        #expect(!counts.isQuiet, "a job of the parked operation is queued")

        counts.jobReturned()
        #expect(counts.isQuiet)
        #expect(!counts.holds(.settled), "settling also needs a probe of the main queue")
        #expect(!counts.holds(.stopped), "the parked operation still runs")
    }

    @Test("operations are counted by the effect they belong to, and one whose effect names no origin still counts")
    func origins() throws {
        final class Model: Sendable {}
        let model = Model()
        let tracking = TestEffectTracking.shared
        let named = tracking.tracker(
            for: model, origin: EffectOrigin(form: "effect(.when)", fileID: "A/B.swift", line: 7))
        let unnamed = tracking.tracker(for: model, origin: EffectOrigin(form: "an effect", fileID: nil, line: 0))
        _ = named.operationWillStart()
        _ = named.operationWillStart()
        _ = unnamed.operationWillStart()

        let activity = try #require(EffectActivity.of(model))
        let running = activity.runningOperations
        #expect(running.count == 3)
        #expect(
            running.effects.map { "\($0.origin) ×\($0.count)" } == ["an effect ×1", "effect(.when) at A/B.swift:7 ×2"])

        named.operationDidEnd()
        unnamed.operationDidEnd()
        #expect(
            activity.runningOperations.effects.map { "\($0.origin) ×\($0.count)" } == [
                "effect(.when) at A/B.swift:7 ×1"
            ])
        named.operationDidEnd()
        #expect(activity.runningOperations.effects.isEmpty)
        #expect(activity.running == 0)
    }

    @Test("effects report to the test kit only in a tree that provides it, as TestHost and .testing(clock:) do")
    @MainActor
    func trackingComesFromTheTree() async {
        let (plain, tracked) = (SleeperModel(), SleeperModel())
        let clock = TestClock()
        let (root, screen, trackedRoot, trackedScreen) = (RootScope(), Behavior(), RootScope(), Behavior())
        trackedRoot.provide(.testing(clock: clock))
        screen.bind(plain)
        trackedScreen.bind(tracked)
        root.host(screen)
        trackedRoot.host(trackedScreen)
        #expect(EffectActivity.of(plain) == nil, "an app's tree provides no tracking: its effects report to no one")
        #expect(EffectActivity.of(tracked)?.running == 1)
        screen.detach()
        trackedScreen.detach()
        await expectEffectsStopped(of: tracked)
    }
}

/// Sleeps on the tree's clock for an hour, from its first activation.
private final class SleeperModel: ViewModel<SleeperModel.Phase>, ScopedViewModel, @unchecked Sendable {
    struct Phase: ViewState {
        var isAwake = false
    }

    init() { super.init(initialState: Phase()) }

    func didBecomeActive(_ activation: Activation<SleeperModel>) {
        let clock = dependency(ClockKey.self)
        activation.effect(.when { !$0.isAwake }) { _ in try? await clock.sleep(for: .seconds(3600)) }
    }
}
