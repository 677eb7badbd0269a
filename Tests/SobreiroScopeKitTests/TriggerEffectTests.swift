import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

struct Upload: ViewState {
    var status = "idle"
    var uploaded: [String] = []
    var refreshes = 0
}

/// An uploader as an app writes one: its methods send to and cancel named effects, with no state flag to reset.
final class UploadModel: ViewModel<Upload>, ScopedViewModel, @unchecked Sendable {
    let clock: TestClock
    let log = RunLog()
    /// Uploads a file; each upload takes a second.
    private let upload = EffectInput<String>()
    /// Refreshes, at most once a second, ignoring the taps in between.
    let refreshing = EffectInput<Void>()

    init(clock: TestClock) {
        self.clock = clock
        super.init(initialState: Upload())
    }

    func didBecomeActive(_ activation: Activation<UploadModel>) {
        let (clock, log) = (clock, log)
        activation.effect(.input(upload)) { file in
            log.record(file, at: clock)
            try await clock.sleep(for: .seconds(1))
            return file
        } reduce: { state, result in
            if case .success(let file) = result { state.uploaded.append(file) }
            state.status = "idle"
        }
        activation.effect(.input(refreshing), timing: .throttled(for: .seconds(1), keeping: .first)) {
            log.record("refresh", at: clock)
        } reduce: { state, _ in
            state.refreshes += 1
        }
    }

    @discardableResult
    func send(_ file: String) -> EffectInput<String>.Outcome {
        write { $0.status = "uploading" }
        return upload.send(file)
    }

    func cancelUpload() -> Bool {
        let wasActive = upload.cancel()
        write { $0.status = "cancelled" }
        return wasActive
    }
}

@Suite("F3: named effects, started, restarted and cancelled by their trigger")
@MainActor
struct TriggerEffectTests {
    @Test("an input sent to a trigger runs the effect, and its result is written back")
    func sendRuns() async {
        let clock = TestClock()
        let model = UploadModel(clock: clock)
        let host = Host(model, clock: clock)

        #expect(model.send("a.png") == .delivered)
        await settleEffects(of: model, timeout: patientWait)
        await clock.advance(by: .seconds(1))

        #expect(model.state == Upload(status: "idle", uploaded: ["a.png"]))
        host.deactivate()
    }

    @Test("sending again restarts the effect: the run it replaces writes nothing")
    func sendRestarts() async {
        let clock = TestClock()
        let model = UploadModel(clock: clock)
        let host = Host(model, clock: clock)

        model.send("a.png")
        await settleEffects(of: model, timeout: patientWait)
        await clock.advance(by: .milliseconds(500))
        model.send("b.png")
        await settleEffects(of: model, timeout: patientWait)
        await clock.advance(by: .seconds(5))

        #expect(model.log.all == ["a.png@0", "b.png@500"])
        #expect(model.state.uploaded == ["b.png"])
        host.deactivate()
    }

    @Test("cancelling by name stops the run: nothing is written back, and a later input runs again")
    func cancelStops() async {
        let clock = TestClock()
        let model = UploadModel(clock: clock)
        let host = Host(model, clock: clock)
        model.send("a.png")
        await settleEffects(of: model, timeout: patientWait)
        await clock.advance(by: .milliseconds(500))

        #expect(model.cancelUpload())
        await clock.advance(by: .seconds(5))
        #expect(model.state == Upload(status: "cancelled"))

        model.send("b.png")
        await settleEffects(of: model, timeout: patientWait)
        await clock.advance(by: .seconds(1))
        #expect(model.state.uploaded == ["b.png"])
        host.deactivate()
    }

    @Test("a throttled trigger runs the first tap of each interval and says which taps it ignored")
    func throttledButton() async {
        let clock = TestClock()
        let model = UploadModel(clock: clock)
        let host = Host(model, clock: clock)

        var outcomes: [EffectInput<Void>.Outcome] = []
        for pause in [0, 300, 900] {
            await clock.advance(by: .milliseconds(pause))
            outcomes.append(model.refreshing.send())
            await settleEffects(of: model, timeout: patientWait)
        }

        #expect(outcomes == [.delivered, .throttled, .delivered])
        #expect(model.log.all == ["refresh@0", "refresh@1200"])
        #expect(model.state.refreshes == 2)
        host.deactivate()
    }

    @Test("a run going when the model deactivates writes nothing, the trigger refuses inputs, and reconnects later")
    func deactivationMidRun() async {
        let clock = TestClock()
        let model = UploadModel(clock: clock)
        let host = Host(model, clock: clock)
        model.send("a.png")
        await settleEffects(of: model, timeout: patientWait)

        host.deactivate()
        await clock.advance(by: .seconds(5))
        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(model.state.uploaded.isEmpty)
        #expect(model.send("b.png") == .inactive)
        #expect(!model.cancelUpload(), "no effect listens")

        host.reactivate()
        #expect(model.send("c.png") == .delivered)
        await settleEffects(of: model, timeout: patientWait)
        await clock.advance(by: .seconds(1))
        #expect(model.state.uploaded == ["c.png"])
        host.deactivate()
    }

    @Test("an input given to two effects at once stops the program, naming the fix")
    func oneEffectPerTrigger() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let trigger = EffectInput<Void>()
                let model = FeedModel { _, activation in
                    activation.effect(.input(trigger)) {
                    } reduce: { _, _ in
                    }
                    activation.effect(.input(trigger)) {
                    } reduce: { _, _ in
                    }
                }
                let host = Host(model)
                withExtendedLifetime(host) {}
            }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("give each effect an input of its own"))
    }
}
