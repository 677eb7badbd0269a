import Combine
import Dispatch
import Sobreiro
import SobreiroCombine
import Synchronization
import TestSupport
import Testing

/// O4 under concurrency: writes from several threads, and requests racing with deliveries, never reorder,
/// repeat or lose the latest state, and never call the subscriber from two threads at once.
@Suite("State publisher: threads")
struct StatePublisherThreadTests {
    static let writers = 4
    static let writesPerWriter = 1000

    @Test(
        "O4: with unlimited demand, writes from several threads arrive increasing, one call at a time, ending on the last"
    )
    func backgroundWritesWithUnlimitedDemand() async {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>()
        model.publisher.subscribe(recorder)

        // When
        DispatchQueue.concurrentPerform(iterations: Self.writers) { _ in
            for _ in 0..<Self.writesPerWriter { model.write { $0.count += 1 } }
        }

        // Then
        let counts = recorder.history.map(\.count)
        #expect(counts.first == 0)
        #expect(counts.last == Self.writers * Self.writesPerWriter)
        #expect(isIncreasing(counts))
        #expect(recorder.overlappingCalls == 0)
    }

    @Test("O4: requests racing with writes never exceed the demand, never reorder or repeat, and end on the last state")
    func requestsRaceWithDeliveries() async {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>(initialDemand: .none)
        model.publisher.subscribe(recorder)
        let requested = Atomic<Int>(0)
        let last = Self.writers * Self.writesPerWriter

        // When
        let requester = onAnotherThread {
            let deadline = DispatchTime.now() + 20
            while recorder.history.last?.count != last, DispatchTime.now() < deadline {
                // Requests only once the previous requests are used up, so that the count of values received
                // can be checked against the count of values requested.
                guard recorder.history.count == requested.load(ordering: .relaxed) else { continue }
                requested.add(1, ordering: .relaxed)
                recorder.request(.max(1))
            }
        }
        DispatchQueue.concurrentPerform(iterations: Self.writers) { _ in
            for _ in 0..<Self.writesPerWriter { model.write { $0.count += 1 } }
        }
        await expectSignalled(requester)

        // Then
        let counts = recorder.history.map(\.count)
        #expect(counts.last == last)
        #expect(isIncreasing(counts))
        #expect(counts.count <= requested.load(ordering: .relaxed))
        #expect(recorder.overlappingCalls == 0)
    }

    @Test(
        "O4: a state delivered while request(_:) sends on another thread waits for that send, and the writer does not")
    func deliveryDuringASendOfRequest() async throws {
        // Given
        let model = ArticleModel()
        let gate = Gate()
        let recorder = Recorder<Article>(initialDemand: .none) { _, state in
            if state.count == 1 { gate.pause() }
            return .none
        }
        model.publisher.subscribe(recorder)
        model.setCount(1)
        let requester = onAnotherThread { recorder.request(.max(2)) }
        try #require(gate.waitUntilPaused())

        // When
        let writer = onAnotherThread { model.setCount(2) }
        await expectSignalled(writer)
        gate.release()

        // Then
        await expectSignalled(requester)
        #expect(recorder.history.map(\.count) == [1, 2])
        #expect(recorder.overlappingCalls == 0)
    }

    @Test("O4: a value sent from request(_:) that writes to the model receives the new state next, after it returns")
    func reentrantWriteFromASendOfRequest() async {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>(initialDemand: .none) { _, state in
            if state.count == 0 { model.setCount(1) }
            return .unlimited
        }
        model.publisher.subscribe(recorder)

        // When
        let requester = onAnotherThread { recorder.request(.max(1)) }

        // Then
        await expectSignalled(requester)
        #expect(recorder.history.map(\.count) == [0, 1])
        #expect(recorder.overlappingCalls == 0)
    }

    @Test("O4: a subscription cancelled on another thread while writes run sends nothing once cancel returns")
    func cancelDuringBackgroundWrites() async {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>()
        model.publisher.subscribe(recorder)
        let writing = Atomic<Bool>(true)
        let writer = onAnotherThread {
            while writing.load(ordering: .relaxed) { model.write { $0.count += 1 } }
        }
        await expectEventually { recorder.history.count > 10 }

        // When
        recorder.cancel()
        let countAtCancel = recorder.history.count
        await expectEventually { model.state.count > (recorder.history.last?.count ?? 0) + 10 }
        writing.store(false, ordering: .relaxed)
        await expectSignalled(writer)

        // Then
        #expect(recorder.history.count == countAtCancel)
        #expect(model.subscriberCount == 0)
    }
}
