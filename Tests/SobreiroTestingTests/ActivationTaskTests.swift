import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

struct Sync: ViewState {
    var syncs = 0
}

/// Syncs once a second on its clock while it is active, through a task of its activation.
final class SyncModel: ViewModel<Sync>, ScopedViewModel, @unchecked Sendable {
    static let taskLine = #line + 11
    let clock: TestClock
    let rounds: Int

    init(clock: TestClock, rounds: Int) {
        self.clock = clock
        self.rounds = rounds
        super.init(initialState: Sync())
    }

    func didBecomeActive(_ activation: Activation<SyncModel>) {
        activation.task { [clock, rounds] in
            for _ in 0..<rounds {
                guard (try? await clock.sleep(for: .seconds(1))) != nil else { return }
                self.write { $0.syncs += 1 }
            }
        }
    }
}

@Suite("Tasks of an activation")
@MainActor
struct ActivationTaskTests {
    @Test("F4: settling waits for an activation's task, which then finishes before the test ends")
    func settlingWaitsForTheTask() async {
        let clock = TestClock()
        let syncing = TestHost(SyncModel(clock: clock, rounds: 2))
        await syncing.settleEffects()
        syncing.expect()
        await clock.advance(by: .seconds(2))
        syncing.expect(Sync(syncs: 1), Sync(syncs: 2))
    }

    @Test("B2: an activation's task is cancelled when the activation ends, and writes nothing after")
    func cancelledAtDeactivation() async {
        let clock = TestClock()
        let syncing = TestHost(SyncModel(clock: clock, rounds: 5))
        await syncing.settleEffects()
        syncing.detach()
        await clock.advance(by: .seconds(5))
        #expect(syncing.model.state == Sync())
        await expectEffectsStopped(of: syncing.model)
    }

    @Test("F4: a test that ends while an activation's task still runs fails at the host's line, naming the task")
    func unfinishedTaskFailsTheTest() async {
        let line = #line + 3
        let clock = TestClock()
        await withKnownIssue {
            let syncing = TestHost(SyncModel(clock: clock, rounds: 5))
            await syncing.settleEffects()
        } matching: { issue in
            issue.sourceLocation?.line == line
                && text(of: issue).contains(
                    "task at SobreiroTestingTests/ActivationTaskTests.swift:\(SyncModel.taskLine)")
        }
    }
}
