import Dispatch
import Sobreiro
import SobreiroPrimitives
import TestSupport
import Testing

private struct Failure: Error {}

/// A counter whose increments are plain reads and writes, made safe only by the lock around them.
private final class UnsafeCounter: @unchecked Sendable {
    var value = 0
}

@Suite("Lock")
struct LockTests {
    @Test("excludes every other thread, uncontended and contended alike")
    func mutualExclusion() async {
        // Guards an Int rather than (): ThreadSanitizer misreports accesses to zero-sized values.
        let lock = Locked(0)
        let counter = UnsafeCounter()
        await expectCompletes {
            race(times: 4) { _ in
                for _ in 0..<50_000 {
                    lock.withLock { guarded in
                        counter.value += 1
                        guarded += 1
                    }
                }
            }
        }
        #expect(counter.value == 200_000)
        #expect(lock.withLock { $0 } == 200_000)
    }

    @Test("threads that wait while the holder takes its time all get their turn")
    func waitersWakeUp() async {
        let lock = Locked(0)
        await expectCompletes {
            race(times: 4) { _ in
                for _ in 0..<200 {
                    lock.withLock { value in
                        for _ in 0..<2_000 { value = value &+ 1 }
                    }
                }
            }
        }
        #expect(lock.withLock { $0 } == 4 * 200 * 2_000)
    }

    @Test("a body that throws releases the lock")
    func throwingBodyUnlocks() {
        let lock = Locked(1)
        #expect(throws: Failure.self) {
            try lock.withLock { _ in throw Failure() }
        }
        #expect(lock.withLock { $0 } == 1)
    }
}

/// A lock shared by the threads of a test.
private final class SharedLock: Sendable {
    let lock = Lock()
}

@Suite("Lock: waiting")
struct LockWaitTests {
    @Test("an uncontended lock runs neither willWait nor didWait")
    func uncontendedSkipsWaitHooks() {
        let shared = SharedLock()
        let log = EventLog()
        shared.lock.withLock(willWait: { log.record("willWait") }, didWait: { log.record("didWait") }) {
            log.record("body")
        }
        #expect(log.all == ["body"])
    }

    @Test("a contended lock runs willWait before waiting, then didWait once held, before the body")
    func contendedRunsWaitHooksInOrder() async {
        // Given a lock held by another thread
        let shared = SharedLock()
        let log = EventLog()
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = onAnotherThread {
            shared.lock.withLock {
                held.signal()
                _ = release.wait(timeout: .now() + patience)
                log.record("holder unlocks")
            }
        }
        await expectSignalled(held)

        // When a thread locks it
        let aboutToWait = DispatchSemaphore(value: 0)
        let waiter = onAnotherThread {
            shared.lock.withLock(
                willWait: {
                    log.record("willWait")
                    aboutToWait.signal()
                },
                didWait: { log.record("didWait") },
                { log.record("body") }
            )
        }
        await expectSignalled(aboutToWait)
        release.signal()

        // Then it waited between willWait and didWait
        await expectSignalled(holder)
        await expectSignalled(waiter)
        #expect(log.all == ["willWait", "holder unlocks", "didWait", "body"])
    }
}
