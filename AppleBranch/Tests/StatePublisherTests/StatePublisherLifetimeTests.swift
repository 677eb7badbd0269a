import Combine
import Dispatch
import Sobreiro
import SobreiroCombine
import TestSupport
import Testing

/// O4 and R5: cancelling a state publisher's subscription ends the model's subscription, sends nothing afterwards
/// whichever thread cancels, and lets go of the subscriber and the model.
@Suite("State publisher: cancellation and lifetime")
struct StatePublisherLifetimeTests {
    @Test("O4: cancel ends the model's subscription, and nothing is sent afterwards")
    func cancelEndsTheSubscription() async {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>()
        model.publisher.subscribe(recorder)
        model.setCount(1)

        // When
        recorder.cancel()
        model.setCount(2)
        recorder.request(.max(1))

        // Then
        #expect(model.subscriberCount == 0)
        #expect(recorder.history.map(\.count) == [0, 1])
    }

    @Test("O4: a subscriber that cancels from inside receive(_:) gets nothing more")
    func cancelFromInsideReceive() async {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article> { recorder, state in
            if state.count == 1 { recorder.cancel() }
            return .none
        }
        model.publisher.subscribe(recorder)

        // When
        // On a thread of its own, so that a subscriber called under a lock fails the test instead of hanging it.
        let done = onAnotherThread {
            model.setCount(1)
            model.setCount(2)
        }

        // Then
        await expectSignalled(done)
        #expect(model.subscriberCount == 0)
        #expect(recorder.history.map(\.count) == [0, 1])
    }

    @Test("R5: cancel on another thread returns only after the model's running delivery to the subscriber returned")
    func cancelWaitsForARunningDelivery() async throws {
        // Given
        let model = ArticleModel()
        let gate = Gate()
        let log = EventLog()
        let recorder = Recorder<Article> { _, state in
            if state.count == 1 {
                gate.pause()
                log.record("receive returned")
            }
            return .none
        }
        model.publisher.subscribe(recorder)
        let writer = onAnotherThread { model.setCount(1) }
        try #require(gate.waitUntilPaused())

        // When
        let canceller = onAnotherThread {
            recorder.cancel()
            log.record("cancel returned")
        }
        await expectEventually { isWaitedForByCancel(recorder) }
        gate.release()

        // Then
        await expectSignalled(canceller)
        await expectSignalled(writer)
        #expect(log.all == ["receive returned", "cancel returned"])
    }

    @Test("R5: cancel on another thread returns only after a value sent by request(_:) has been received")
    func cancelWaitsForASendOfRequest() async throws {
        // Given
        let model = ArticleModel()
        let gate = Gate()
        let log = EventLog()
        let recorder = Recorder<Article>(initialDemand: .none) { _, _ in
            gate.pause()
            log.record("receive returned")
            return .none
        }
        model.publisher.subscribe(recorder)
        let requester = onAnotherThread { recorder.request(.max(1)) }
        try #require(gate.waitUntilPaused())

        // When
        let canceller = onAnotherThread {
            recorder.cancel()
            log.record("cancel returned")
        }
        await expectEventually { isWaitedForByCancel(recorder) }
        gate.release()

        // Then
        await expectSignalled(canceller)
        await expectSignalled(requester)
        #expect(log.all == ["receive returned", "cancel returned"])
        #expect(model.subscriberCount == 0)
    }

    @Test("O4: cancelling lets go of the subscriber, and of the model once the publisher is gone")
    func cancelReleasesTheSubscriberAndTheModel() {
        // Given
        var model: ArticleModel? = ArticleModel()
        var recorder: Recorder<Article>? = Recorder<Article>()
        weak let weakModel = model
        weak let weakRecorder = recorder
        model?.publisher.subscribe(recorder!)
        // The subscription and the subscriber hold each other until the subscription is cancelled.
        let subscription = recorder?.subscription

        // When
        subscription?.cancel()
        recorder = nil
        model = nil

        // Then
        #expect(weakRecorder == nil)
        #expect(weakModel == nil)
    }

    @Test("O4: releasing a sink's cancellable ends the subscription and leaks nothing")
    func releasingTheCancellableLeaksNothing() {
        // Given
        var model: ArticleModel? = ArticleModel()
        weak let weakModel = model
        var cancellable: AnyCancellable? = model?.publisher.sink { _ in }
        model = nil
        #expect(weakModel != nil, "an open subscription keeps its model alive")
        #expect(weakModel?.subscriberCount == 1)

        // When
        cancellable = nil

        // Then
        #expect(cancellable == nil)
        #expect(weakModel == nil)
    }

    @Test("O4: a subscriber that lets its subscription go without cancelling it ends the model's subscription")
    func droppedSubscriptionEndsTheModelsSubscription() {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>()
        model.publisher.subscribe(recorder)
        #expect(model.subscriberCount == 1)

        // When
        recorder.dropSubscription()
        model.setCount(1)

        // Then
        #expect(model.subscriberCount == 0)
        #expect(recorder.history.map(\.count) == [0])
    }
}

/// Whether a cancel of `recorder`'s subscription waits for a call of it on another thread.
private func isWaitedForByCancel(_ recorder: Recorder<Article>) -> Bool {
    (recorder.subscription as? StatePublisherSubscription<Article>)?.isWaitedForByCancel == true
}
