import Dispatch
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// One subscription's call slot, shared by the threads of a test.
private final class SharedSlot: Sendable {
    let slot = CallSlot()
}

/// The waits of `CallWaiting` alone, through a call slot: a cancel sleeps until the call it waits for returns.
@Suite("Waiting for a call on another thread")
struct CallWaitingTests {
    @Test("the end of a call wakes every cancel that waits for it, each on a thread of its own")
    func endOfCallWakesEveryWaiter() async throws {
        // Given a call running on a thread of its own
        let shared = SharedSlot()
        let began = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let caller = onAnotherThread {
            _ = shared.slot.beginCall()
            began.signal()
            _ = release.wait(timeout: .now() + patience)
            shared.slot.endCall()
        }
        await expectSignalled(began)

        // When three threads wait for it
        let returned = Atomic<Int>(0)
        let cancels = (0..<3).map { _ in
            onAnotherThread {
                shared.slot.waitForCallToEnd()
                returned.add(1, ordering: .relaxed)
            }
        }
        await expectEventually { shared.slot.isWaitedFor }
        try await Task.sleep(for: .milliseconds(50))
        #expect(returned.load(ordering: .relaxed) == 0)

        // Then the call's end wakes all three
        release.signal()
        await expectSignalled(caller)
        for cancel in cancels { await expectSignalled(cancel) }
        #expect(returned.load(ordering: .relaxed) == 3)
    }

    @Test("a cancel never misses the end it waits for, however closely the calls follow one another")
    func noLostWakeUp() async {
        // Given one thread that makes call after call, and another that waits for each call it sees
        let shared = SharedSlot()
        let rounds = 20_000
        // When both run flat out: a wake-up lost between a cancel's look at the call and its sleep leaves the
        // cancel asleep after the last call, and the test without an end
        let caller = onAnotherThread {
            for _ in 0..<rounds {
                _ = shared.slot.beginCall()
                shared.slot.endCall()
            }
        }
        let canceller = onAnotherThread {
            for _ in 0..<rounds { shared.slot.waitForCallToEnd() }
        }
        // Then both finish
        await expectSignalled(caller)
        await expectSignalled(canceller)
        let isWaitedFor = shared.slot.isWaitedFor
        #expect(!isWaitedFor)
    }
}
