import Dispatch
import Foundation
import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

struct Lamp: ViewState {
    var isOn = false
    var query = ""
    var loads = 0
    var activations = 0
    var deactivations = 0
}

/// Sleeps on its clock while it is on, and once per query; counts its activations and deactivations.
final class LampModel: ViewModel<Lamp>, ScopedViewModel, @unchecked Sendable {
    let clock: TestClock
    /// Where `didBecomeActive` declares its two effects, which a failure names.
    static let whenLine: UInt = #line + 10
    static let onChangeLine: UInt = #line + 14

    init(clock: TestClock = TestClock()) {
        self.clock = clock
        super.init(initialState: Lamp())
    }

    func didBecomeActive(_ activation: Activation<LampModel>) {
        write { $0.activations += 1 }
        activation.effect(.when(\.isOn)) { [clock] _ in
            try await clock.sleep(for: .seconds(1))
        } reduce: { state, _ in
            state.isOn = false
        }
        activation.effect(.onChange(of: \.query), strategy: .continueOnNewState) { [clock] query in
            guard !query.isEmpty else { return false }
            try await clock.sleep(for: .seconds(1))
            return true
        } reduce: { state, loaded in
            if case .success(true) = loaded { state.loads += 1 }
        }
    }

    func didBecomeInactive() {
        write { $0.deactivations += 1 }
    }
}

/// Answers each run with the next number the test sends.
final class AnswerModel: ViewModel<Lamp>, ScopedViewModel, @unchecked Sendable {
    let (answers, answer) = AsyncStream.makeStream(of: Int.self)

    init() {
        super.init(initialState: Lamp())
    }

    func didBecomeActive(_ activation: Activation<AnswerModel>) {
        activation.effect(.when(\.isOn)) { [answers] _ in
            for await answer in answers { return answer }
            return 0
        } reduce: { state, answer in
            state.isOn = false
            state.loads = answer.get()
        }
    }
}

@Suite("A model under test in one line")
@MainActor
struct TestHostTests {
    @Test("a host activates its model at once, and its end detaches the model and releases the tree")
    func lifetime() async {
        let model = LampModel()
        weak var behavior: Behavior?
        do {
            let lamp = TestHost(model)
            behavior = lamp.behavior
            #expect(lamp.behavior.state == .active)
            #expect(model.state.activations == 1)
            // The first run of the query's effect, for the empty query, ends the test finished.
            await lamp.settleEffects()
        }
        #expect(behavior == nil, "the host's tree is gone with it")
        model.write { $0.isOn = true }
        #expect(model.state.isOn, "no effect runs: the model is no longer active")
    }

    @Test("the recorder takes the given state as seen, and records what activation and the test write")
    func recording() async {
        let lamp = TestHost(LampModel())
        lamp.expect(Lamp(activations: 1))
        lamp.model.write { $0.loads = 5 }
        lamp.expect(Lamp(loads: 5, activations: 1))
        await lamp.settleEffects()
    }

    @Test("a state left unasserted fails the test at the line that made the host")
    func unassertedState() async {
        let line = #line + 2
        await withKnownIssue {
            let lamp = TestHost(LampModel())
            lamp.expect(Lamp(activations: 1))
            lamp.model.write { $0.loads = 7 }
            await lamp.settleEffects()
        } matching: { issue in
            text(of: issue).contains("1 state(s) delivered but never asserted") && issue.sourceLocation?.line == line
        }
    }

    @Test("detach deactivates the model mid-test and cancels its effects; attach activates it again")
    func detachAndAttach() async {
        let lamp = TestHost(LampModel())
        lamp.model.write { $0.isOn = true }
        await lamp.settleEffects()
        #expect(lamp.model.clock.sleeperCount == 1)

        lamp.detach()
        await expectEffectsStopped(of: lamp.model)
        #expect(lamp.model.clock.sleeperCount == 0)

        lamp.attach()
        await lamp.settleEffects()
        #expect(lamp.model.clock.sleeperCount == 1, "the lamp is still on, and sleeps again")
        await lamp.model.clock.advance(by: .seconds(1))
        #expect(lamp.states.history.last == Lamp(activations: 2, deactivations: 1))
    }

    @Test("a model bound elsewhere fails the test at the line that made the host")
    func alreadyBound() {
        let model = LampModel()
        let elsewhere = Behavior()
        elsewhere.bind(model)
        withKnownIssue {
            _ = TestHost(model)
        } matching: { issue in
            text(of: issue).contains("TestHost could not host LampModel: the view model is already bound")
        }
    }

    @Test("an effect still running at the end fails the test at the host's line, naming each effect and its line")
    func unfinishedEffects() async {
        let line = #line + 2
        await withKnownIssue {
            let lamp = TestHost(LampModel())
            lamp.model.write { $0.isOn = true }
            lamp.model.write { $0.query = "oak" }
            lamp.model.write { $0.query = "cork" }
            await lamp.settleEffects()
        } matching: { issue in
            let file = "SobreiroTestingTests/TestHostTests.swift"
            return issue.sourceLocation?.line == line
                && text(of: issue).contains(
                    "3 effect operation(s) of LampModel still run at the end of the test, all asleep on a TestClock"
                )
                && text(of: issue).contains("effect(.when) at \(file):\(LampModel.whenLine)\n")
                && text(of: issue).contains("effect(.onChange) at \(file):\(LampModel.onChangeLine) (×2)")
                && text(of: issue).contains("detach() on its TestHost or its behavior")
                && text(of: issue).contains("TestHost(model, effects: .mayOutliveTest)")
        }
    }

    @Test("an operation that has not returned from its body is reported at once, as running")
    nonisolated func unfinishedOperation() async throws {
        final class Model: Sendable {}
        let model = Model()
        let tracker = TestEffectTracking.shared.tracker(
            for: model, origin: EffectOrigin(form: "effect(.when)", fileID: "A/B.swift", line: 7))
        let (entered, release) = (AsyncSignal(), AsyncSignal())
        _ = tracker.operationWillStart()
        let operation = Task.detached {
            await tracker.run {
                entered.signal()
                await release.wait()
            }
            tracker.operationDidEnd()
        }
        await entered.wait()
        withKnownIssue {
            expectEffectsFinished(of: model)
        } matching: { issue in
            text(of: issue).contains("1 effect operation(s) of Model still run at the end of the test:\n")
                && text(of: issue).contains("effect(.when) at A/B.swift:7, running, or waiting for something other")
        }
        release.signal()
        await operation.value
    }

    @Test("an operation whose body has returned, writing back, is not reported, and the check waits for nothing")
    nonisolated func writingBack() async throws {
        final class Model: Sendable {}
        let model = Model()
        let tracker = TestEffectTracking.shared.tracker(
            for: model, origin: EffectOrigin(form: "effect(.when)", fileID: "A/B.swift", line: 7))
        _ = tracker.operationWillStart()
        await tracker.run {}
        // The body has returned; the write-back, between here and operationDidEnd(), is what the test has seen.
        let started = ContinuousClock.now
        expectEffectsFinished(of: model)
        #expect(ContinuousClock.now - started < .seconds(4), "the check waited instead of answering at once")
        tracker.operationDidEnd()
    }

    @Test("with effects that may outlive the test, an effect still running ends with the tree, unreported")
    func mayOutliveTest() async {
        let model = LampModel()
        do {
            let lamp = TestHost(model, effects: .mayOutliveTest)
            lamp.model.write { $0.isOn = true }
            await lamp.settleEffects()
            #expect(model.clock.sleeperCount == 1)
        }
        await expectEffectsStopped(of: model)
        #expect(model.clock.sleeperCount == 0)
        #expect(model.state.deactivations == 1)
    }

    @Test("expectEffectsFinished checks a hand-built tree at its line")
    func handBuiltTree() async {
        let model = LampModel()
        let hosted = Hosted(model)
        model.write { $0.isOn = true }
        await settleEffects(of: model)
        let line = #line + 2
        withKnownIssue {
            expectEffectsFinished(of: model)
        } matching: { issue in
            issue.sourceLocation?.line == line
                && text(of: issue).contains(
                    "1 effect operation(s) of LampModel still run at the end of the test, asleep on a TestClock"
                )
        }

        await model.clock.advance(by: .seconds(1))
        expectEffectsFinished(of: model)
        hosted.screen.detach()
    }

    @Test("a host released off the main actor fails the test, naming the fix, and still tears its tree down")
    nonisolated func offMainActor() async {
        let model = LampModel()
        await withKnownIssue {
            let lamp = await TestHost(model)
            #expect(lamp.model === model)
            await lamp.settleEffects()
        } matching: { issue in
            text(of: issue).contains("released off the main actor") && text(of: issue).contains("@MainActor")
        }
        // The tree is torn down by a job queued on the main queue before this one.
        await withCheckedContinuation { done in DispatchQueue.main.async { done.resume() } }
        #expect(model.state.deactivations == 1)
    }
}
