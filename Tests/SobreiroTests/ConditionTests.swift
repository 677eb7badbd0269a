import SobreiroPrimitives
import TestSupport
import Testing

@Suite("Condition")
struct ConditionTests {
    /// What the sleepers and the waker share, guarded by the condition's mutex.
    private final class Sleepers: @unchecked Sendable {
        let condition = Condition()
        var asleep = 0
        var isReleased = false
        var woken = 0

        /// Counts itself and sleeps until released, without releasing the mutex in between: once `asleep` reads
        /// n under the mutex, n sleepers are inside `wait()`.
        func sleep() {
            condition.withLock {
                asleep += 1
                while !isReleased { condition.wait() }
                woken += 1
            }
        }

        func release(wakingAll: Bool) {
            condition.withLock {
                isReleased = true
                if wakingAll { condition.broadcast() } else { condition.signal() }
            }
        }
    }

    @Test("broadcast wakes every thread sleeping in wait, and each sees what changed under the mutex")
    func broadcastWakesEverySleeper() async {
        let sleepers = Sleepers()
        let threads = (0..<3).map { _ in onAnotherThread { sleepers.sleep() } }
        await expectEventually { sleepers.condition.withLock { sleepers.asleep == 3 } }
        sleepers.release(wakingAll: true)
        for done in threads { await expectSignalled(done) }
        #expect(sleepers.condition.withLock { sleepers.woken } == 3)
    }

    @Test("signal wakes a thread sleeping in wait")
    func signalWakesASleeper() async {
        let sleepers = Sleepers()
        let done = onAnotherThread { sleepers.sleep() }
        await expectEventually { sleepers.condition.withLock { sleepers.asleep == 1 } }
        sleepers.release(wakingAll: false)
        await expectSignalled(done)
        #expect(sleepers.condition.withLock { sleepers.woken } == 1)
    }
}
