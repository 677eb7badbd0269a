import Combine
import Sobreiro
import SobreiroCombine
import TestSupport
import Testing

/// O4: a model's states and a projection's values as a Combine publisher: the current state, then each committed,
/// deduplicated change in order, with demand honoured.
@Suite("State publisher")
struct StatePublisherTests {
    @Test("O4: a new subscriber receives the current state at once")
    func replaysTheCurrentState() {
        // Given
        let model = ArticleModel(count: 3)
        model.write { $0.title = "draft" }
        let recorder = Recorder<Article>()

        // When
        model.publisher.subscribe(recorder)

        // Then
        #expect(recorder.history == [Article(title: "draft", count: 3)])
        #expect(model.subscriberCount == 1)
    }

    @Test("O4: committed changes follow the current state in commit order, one value per transaction")
    func sendsChangesInOrder() {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>()
        model.publisher.subscribe(recorder)

        // When
        for count in 1...3 { model.setCount(count) }
        model.write {
            $0.title = "a"
            $0.title = "b"
        }

        // Then
        #expect(recorder.history.map(\.count) == [0, 1, 2, 3, 3])
        #expect(recorder.history.last?.title == "b")
    }

    @Test("O4: a commit equal to the previous state sends nothing")
    func dropsDuplicateCommits() {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>()
        model.publisher.subscribe(recorder)

        // When
        model.setCount(0)
        model.setCount(1)
        model.setCount(1)

        // Then
        #expect(recorder.history.map(\.count) == [0, 1])
    }

    @Test("O4: a projection's publisher sends its value, then only the values that change")
    func projectionSendsOnlyItsChanges() {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<String>()
        model.map(\.title).publisher.subscribe(recorder)

        // When
        model.setCount(1)
        model.write { $0.title = "first" }
        model.setCount(2)
        model.write { $0.title = "second" }

        // Then
        #expect(recorder.history == ["", "first", "second"])
    }

    @Test("O4: the documented pipeline, map, removeDuplicates and sink, follows the model")
    func pipelineFollowsTheModel() {
        // Given
        let model = ArticleModel()
        var titles: [String] = []
        let cancellable = model.publisher.map(\.title).removeDuplicates().sink { titles.append($0) }

        // When
        model.write { $0.title = "one" }
        model.setCount(5)
        model.write { $0.title = "two" }
        cancellable.cancel()
        model.write { $0.title = "three" }

        // Then
        #expect(titles == ["", "one", "two"])
    }

    @Test("O4: with no demand nothing is sent; the first request sends the state current then")
    func waitsForDemand() {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>(initialDemand: .none)
        model.publisher.subscribe(recorder)
        model.setCount(1)
        #expect(recorder.history.isEmpty)

        // When
        recorder.request(.max(1))

        // Then
        #expect(recorder.history.map(\.count) == [1])
    }

    @Test(
        "O4: limited demand is never exceeded, and a subscriber that catches up gets the latest state, not a stale one")
    func limitedDemandKeepsOnlyTheLatest() {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>(initialDemand: .max(1))
        model.publisher.subscribe(recorder)

        // When
        model.setCount(1)
        model.setCount(2)
        let afterFirstDemand = recorder.history.map(\.count)
        recorder.request(.max(1))
        let afterSecondDemand = recorder.history.map(\.count)
        recorder.request(.max(2))
        model.setCount(3)
        model.setCount(4)
        model.setCount(5)

        // Then
        #expect(afterFirstDemand == [0])
        #expect(afterSecondDemand == [0, 2])
        #expect(recorder.history.map(\.count) == [0, 2, 3, 4])
    }

    @Test("O4: demand returned from receive(_:) is added, and so is demand requested from inside it, with no lock held")
    func demandFromInsideReceive() async {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>(initialDemand: .max(1)) { recorder, state in
            if state.count == 0 { return .max(1) }
            if state.count == 1 { recorder.request(.max(1)) }
            return .none
        }

        // When
        // On a thread of its own, so that a subscriber called under a lock fails the test instead of hanging it.
        let done = onAnotherThread {
            model.publisher.subscribe(recorder)
            for count in 1...4 { model.setCount(count) }
        }

        // Then
        await expectSignalled(done)
        #expect(recorder.history.map(\.count) == [0, 1, 2])
    }

    @Test("O4: a state that went and came back while demand was zero is not sent twice in a row")
    func coalescingNeverRepeatsTheLastValue() {
        // Given
        let model = ArticleModel()
        let recorder = Recorder<Article>(initialDemand: .max(1))
        model.publisher.subscribe(recorder)
        model.setCount(1)
        model.setCount(0)

        // When
        recorder.request(.max(1))
        let afterRequest = recorder.history.map(\.count)
        model.setCount(2)

        // Then
        #expect(afterRequest == [0])
        #expect(recorder.history.map(\.count) == [0, 2])
    }

    @Test("O4: each subscriber has its own subscription and its own demand")
    func subscribersAreIndependent() {
        // Given
        let model = ArticleModel()
        let eager = Recorder<Article>()
        let lazy = Recorder<Article>(initialDemand: .none)
        let publisher = model.publisher
        publisher.subscribe(eager)
        publisher.subscribe(lazy)

        // When
        model.setCount(1)
        model.setCount(2)
        lazy.request(.max(1))

        // Then
        #expect(model.subscriberCount == 2)
        #expect(eager.history.map(\.count) == [0, 1, 2])
        #expect(lazy.history.map(\.count) == [2])
    }

    @Test("O4: the first value follows receive(subscription:), even when demand is requested inside it")
    func firstValueFollowsTheSubscription() {
        // Given
        let model = ArticleModel()
        let log = EventLog()
        let subscriber = AnySubscriber<Article, Never>(
            receiveSubscription: { subscription in
                subscription.request(.unlimited)
                log.record("subscription received")
            },
            receiveValue: { state in
                log.record("value \(state.count)")
                return .none
            }
        )

        // When
        model.publisher.subscribe(subscriber)

        // Then
        #expect(log.all == ["subscription received", "value 0"])
    }

    @Test("R3: requesting no values traps, naming the fix")
    func requestingNoneTraps() async {
        await #expect(processExitsWith: .failure) {
            let recorder = Recorder<Article>(initialDemand: .none)
            ArticleModel().publisher.subscribe(recorder)
            recorder.request(.none)
        }
    }
}
