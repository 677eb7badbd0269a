import Dispatch
import Sobreiro
import SobreiroPrimitives
import SobreiroTesting
import Testing

@Suite("Test clock: cancellation")
struct ClockCancellationTests {
    @Test("a cancellation that lands after the sleep's check and before it is listed still ends the sleep")
    func cancellationBeforeListing() async {
        // Given a clock that cancels each sleeping task inside the window between its check and its listing
        let clock = TestClock()
        clock.willListSleeper = { withUnsafeCurrentTask { $0?.cancel() } }
        let ended = Locked(false)

        // When a task sleeps on it
        let task = Task.detached { () -> Bool in
            defer { ended.withLock { $0 = true } }
            do {
                try await clock.sleep(for: .seconds(1))
                return false
            } catch {
                return error is CancellationError
            }
        }
        // The sleep either ended or was listed: both happen right after the window, on the task's thread.
        let deadline = ContinuousClock.now.advanced(by: patience)
        while !ended.withLock({ $0 }), clock.sleeperCount == 0, ContinuousClock.now < deadline {
            await Task.yield()
        }

        // Then it throws CancellationError instead of sleeping until the clock advances
        #expect(clock.sleeperCount == 0, "the cancelled task sleeps on the clock")
        if clock.sleeperCount > 0 { await clock.advance(by: .seconds(1)) }
        #expect(await task.value, "the sleep threw CancellationError")
    }

    @Test("a sleep that ended normally leaves no cancellation behind for a later sleep")
    func cancellationAfterTheSleep() async throws {
        let clock = TestClock()
        let task = Task.detached {
            try await clock.sleep(for: .seconds(1))
            withUnsafeCurrentTask { $0?.cancel() }
        }
        while clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(1))
        try await task.value

        let second = Task.detached { try await clock.sleep(for: .seconds(1)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(1))
        try await second.value
    }

    @Test("many sleeps cancelled from other threads at any moment all end without an advance")
    func cancelledSleepsAllEnd() async {
        let clock = TestClock()
        let ended = Locked(0)
        let count = 400
        var tasks: [Task<Void, Never>] = []
        for _ in 0..<count {
            tasks.append(
                Task.detached {
                    for _ in 0..<3 {
                        do { try await clock.sleep(for: .seconds(1)) } catch { break }
                    }
                    ended.withLock { $0 += 1 }
                }
            )
        }
        // Half of them cancelled from the pool, the rest from here, once some of the sleeps are listed.
        while clock.sleeperCount < count / 4 { await Task.yield() }
        for (index, task) in tasks.enumerated() {
            if index % 2 == 0 {
                DispatchQueue.global().async { task.cancel() }
            } else {
                task.cancel()
            }
        }
        let deadline = ContinuousClock.now.advanced(by: patience)
        while ended.withLock({ $0 }) < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let stillAsleep = count - ended.withLock { $0 }
        #expect(stillAsleep == 0, "\(stillAsleep) cancelled task(s) still sleep on the clock")
        #expect(clock.sleeperCount == 0)
        if clock.sleeperCount > 0 { await clock.advance(by: .seconds(10)) }
    }
}
