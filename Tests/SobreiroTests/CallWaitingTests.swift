import Dispatch
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

    @Test("a cancel never misses the end it waits for, whether the end comes before or after it sleeps")
    func noLostWakeUp() async {
        // Given one thread that makes call after call, each ending as soon as a cancel marks it as waited for, and
        // another thread that waits for each call: the end races with the cancel going to sleep, every round
        let shared = SharedSlot()
        let rounds = 2_000
        let started = Atomic<Int>(0)
        let deadline = DispatchTime.now() + patience
        let caller = onAnotherThread {
            for round in 1...rounds {
                _ = shared.slot.beginCall()
                started.store(round, ordering: .releasing)
                while !shared.slot.isWaitedFor, DispatchTime.now() < deadline { sched_yield() }
                shared.slot.endCall()
            }
        }
        // When the cancel waits for each call in turn
        let canceller = onAnotherThread {
            for round in 1...rounds {
                while started.load(ordering: .acquiring) < round, DispatchTime.now() < deadline { sched_yield() }
                shared.slot.waitForCallToEnd()
            }
        }
        // Then both finish: a lost wake-up would leave the cancel asleep, and the caller waiting for its mark
        await expectSignalled(caller)
        await expectSignalled(canceller)
        #expect(DispatchTime.now() < deadline)
    }
}
