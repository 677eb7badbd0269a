import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

@Suite("F2: streams folded into the state while the activation lasts")
@MainActor
struct StreamEffectTests {
    /// A model that adds each score of the live feed to its count.
    private func scoreModel(_ scores: Broadcast<Int>) -> FeedModel {
        FeedModel { _, activation in
            activation.effect(.elements(of: scores.stream())) { state, score in
                switch score {
                case .success(let points): state.count += points
                case .failure(let error): state.failure = "\(error)"
                }
            }
        }
    }

    @Test("each element is folded into the state, in order, and settling waits for it")
    func foldsEachElement() async {
        let scores = Broadcast<Int>()
        let model = scoreModel(scores)
        let states = StateRecorder(subscribedTo: model)
        let host = Host(model)

        for points in [3, 2, 1] { scores.send(points) }
        await settleEffects(of: model, timeout: patientWait)

        states.expect(Feed(), Feed(count: 3), Feed(count: 5), Feed(count: 6))
        host.deactivate()
    }

    @Test("a reduce that writes to its model, not through its argument, stops the program and says how to fold")
    func reduceWritingItsModelTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            @MainActor in
            let scores = Broadcast<Int>()
            let model = FeedModel { model, activation in
                activation.effect(.elements(of: scores.stream())) { [weak model] _, _ in
                    model?.write { model?.state.count += 1 }
                }
            }
            let host = Host(model)
            scores.send(1)
            await settleEffects(of: model, timeout: patientWait)
            withExtendedLifetime(host) {}
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("in an effect's reduce, change the state through its argument only"))
    }

    @Test("a failure of the sequence reaches reduce as a value and ends the consumption")
    func failureIsAValue() async {
        let scores = Broadcast<Int>()
        let model = scoreModel(scores)
        let host = Host(model)

        scores.send(1)
        scores.fail(Offline())
        await settleEffects(of: model, timeout: patientWait)

        #expect(model.state.count == 1)
        #expect(model.state.failure == "offline (attempt 0)")
        await expectEffectsStopped(of: model, timeout: patientWait)
        host.deactivate()
    }

    @Test("deactivation cancels the iteration, nothing is written after it, and the next activation starts again")
    func stopsAndRestarts() async {
        let scores = Broadcast<Int>()
        let model = scoreModel(scores)
        let host = Host(model)
        scores.send(1)
        await settleEffects(of: model, timeout: patientWait)

        host.deactivate()
        scores.send(10)
        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(scores.ended == 1, "the iteration was cancelled")
        #expect(model.state.count == 1)

        host.reactivate()
        scores.send(100)
        await settleEffects(of: model, timeout: patientWait)
        #expect(model.state.count == 101)
        #expect(scores.listeners == 1)
        host.deactivate()
    }

    @Test("an element that arrived before the deactivation but is written after it is dropped")
    func noWriteAfterDeactivation() async {
        let entered = Gate<Bool>()
        let release = Gate<Bool>()
        let scores = Broadcast<Int>()
        let model = FeedModel { _, activation in
            let slow = scores.stream().map { points in
                entered.open(true)
                _ = await release.wait(honoursCancellation: false)
                return points
            }
            activation.effect(.elements(of: slow)) { state, score in
                state.count += (try? score.get()) ?? 0
            }
        }
        let host = Host(model)
        scores.send(5)
        _ = await entered.wait()

        host.deactivate()
        release.open(true)

        await expectEffectsStopped(of: model, timeout: patientWait)
        #expect(model.state.count == 0)
    }

    @Test("another model's states can be folded, with the never-failing form")
    func foldsAnotherModel() async {
        let league = ViewModel(initialState: Feed())
        let model = FeedModel { _, activation in
            activation.effect(.elements(of: league.states)) { state, league in
                state.level = league.count
            }
        }
        let host = Host(model)

        league.write { $0.count = 4 }
        await settleEffects(of: model, timeout: patientWait)

        #expect(model.state.level == 4)
        host.deactivate()
    }
}
