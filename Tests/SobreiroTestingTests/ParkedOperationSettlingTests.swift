import Dispatch
import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import Testing

struct TwoJobs: ViewState {
    var racing = false
    var fetching = false
    var fetched = false
}

/// A model with two effects: one whose operation races two sleeps on a test clock in child tasks, one whose
/// operation waits for something no clock drives.
final class TwoJobsModel: ViewModel<TwoJobs>, ScopedViewModel, @unchecked Sendable {
    let clock: TestClock
    let fetch = AsyncSignal()

    init(clock: TestClock) {
        self.clock = clock
        super.init(initialState: TwoJobs())
    }

    func didBecomeActive(_ activation: Activation<TwoJobsModel>) {
        let clock = clock
        activation.effect(.when(\.racing)) { _ in
            // A timeout race: two children, each asleep on the test clock.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await clock.sleep(for: .seconds(1)) }
                group.addTask { try? await clock.sleep(for: .seconds(2)) }
                await group.next()
                group.cancelAll()
            }
        } reduce: { state, _ in
            state.racing = false
        }
        let fetch = fetch
        activation.effect(.when(\.fetching)) { _ in
            // Waits for the test, not for a clock: this operation is running, not settled.
            await fetch.wait()
        } reduce: { state, _ in
            state.fetched = true
            state.fetching = false
        }
    }
}

@Suite("Settling: an operation parked in several child tasks")
@MainActor
struct ParkedOperationSettlingTests {
    /// The effects are quiet when every running operation is parked: an operation asleep in two child tasks must
    /// count as parked once, or its second sleep would pass for the other operation, which runs, and settling would
    /// return early.
    @Test("settling waits for an operation that runs while another sleeps on a test clock in two child tasks")
    func settlingWaitsForARunningOperation() async {
        let clock = TestClock()
        let model = TwoJobsModel(clock: clock)
        let host = TestHost(model, effects: .mayOutliveTest)
        model.write { $0.racing = true }
        await host.settleEffects()
        let activity = EffectActivity.of(model)!
        #expect(activity.runningOperations.parked == 1, "the race sleeps in two children, and is one operation")

        model.write { $0.fetching = true }
        // Wait until the fetch has started its operation, so that it is counted.
        let deadline = ContinuousClock.now + .seconds(20)
        while activity.running < 2, ContinuousClock.now < deadline { await Task.yield() }
        let settled = await settledWithin(seconds: 1, activity)
        let running = activity.runningOperations
        #expect(
            !settled,
            "settled with \(running.count) operations running and \(running.parked) parked, while the fetch runs"
        )
        #expect(!model.state.fetched)
        // Each state that still matches restarts the fetch: let every run through.
        for _ in 0..<4 { model.fetch.signal() }
        await clock.advance(by: .seconds(2))
        await host.settleEffects()
        #expect(model.state.fetched)
        host.detach()
    }
}

/// Whether `activity` settles within `seconds`.
private func settledWithin(seconds: Double, _ activity: EffectActivity) async -> Bool {
    await activity.wait(until: .settled) { expire in
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: expire)
    }
}

/// A counting signal that a task awaits by suspending: each `signal()` lets one wait through, now or later.
final class AsyncSignal: Sendable {
    private struct Contents {
        var signals = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let contents = Locked(Contents())

    /// Suspends until a signal is there for this wait.
    func wait() async {
        await withCheckedContinuation { continuation in
            let isSignalled = contents.withLock { contents in
                guard contents.signals == 0 else {
                    contents.signals -= 1
                    return true
                }
                contents.waiters.append(continuation)
                return false
            }
            if isSignalled { continuation.resume() }
        }
    }

    /// Lets the oldest wait through, or the next one to come.
    func signal() {
        let waiter = contents.withLock { contents -> CheckedContinuation<Void, Never>? in
            guard !contents.waiters.isEmpty else {
                contents.signals += 1
                return nil
            }
            return contents.waiters.removeFirst()
        }
        waiter?.resume()
    }
}
