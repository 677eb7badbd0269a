import Dispatch
import Sobreiro
import SobreiroPrimitives
import SobreiroTesting
import Testing

@Suite("Subscription tokens")
struct TokenTests {
    @Test("subscribe(view:) returns a token whose cancel stops the renders")
    func viewTokenCancels() {
        let model = CounterModel()
        let recorder = StateRecorder<Counter>()
        let token = model.subscribe(view: recorder)
        model.increment()
        token.cancel()
        model.increment()
        #expect(recorder.history.map(\.count) == [0, 1])
        #expect(model.subscriberCount == 0)
    }

    @Test("V3: subscribing a view twice returns the token of the one subscription")
    func secondSubscribeReturnsTheSameToken() {
        let model = CounterModel()
        let recorder = StateRecorder<Counter>()
        let first = model.subscribe(view: recorder)
        let second = model.subscribe(view: recorder)
        #expect(first == second)
        second.cancel()
        model.increment()
        #expect(recorder.history.map(\.count) == [0])
    }

    @Test("a token cancelled again, or after unsubscribe(view:), does nothing; it never ends a newer subscription")
    func staleTokenDoesNotEndANewerSubscription() {
        let model = CounterModel()
        let recorder = StateRecorder<Counter>()
        let old = model.subscribe(view: recorder)
        model.unsubscribe(view: recorder)
        old.cancel()
        let current = model.subscribe(view: recorder)
        old.cancel()
        model.increment()
        #expect(recorder.history.map(\.count) == [0, 0, 1])
        #expect(current != old)
        #expect(model.subscriberCount == 1)
    }

    @Test("tokens cancel safely from many threads while writers run")
    func cancelFromManyThreads() async {
        let model = CounterModel()
        let views = (0..<64).map { _ in ProbeView<Counter>() }
        let tokens = views.map { model.subscribe(view: $0) }
        await expectCompletes {
            race(times: 4) { worker in
                for index in 0..<tokens.count where index % 4 == worker {
                    model.increment()
                    tokens[index].cancel()
                }
            }
        }
        #expect(model.subscriberCount == 0)
        let before = views.map(\.history.count)
        model.increment()
        #expect(views.map(\.history.count) == before, "a cancelled view rendered")
        #expect(views.allSatisfy { $0.overlappingRenders == 0 })
    }

    @Test("a token outliving its model cancels nothing and does not crash")
    func tokenOutlivesModel() {
        let recorder = StateRecorder<Counter>()
        var model: CounterModel? = CounterModel()
        let token = model!.subscribe(view: recorder)
        weak let weakModel = model
        model = nil
        #expect(weakModel == nil, "a token must not keep its model alive")
        token.cancel()
    }

    @Test("tokens are hashable by identity")
    func tokensAreHashable() {
        let model = CounterModel()
        let views = [StateRecorder<Counter>(), StateRecorder<Counter>()]
        let tokens = Set(views.map { model.subscribe(view: $0) })
        #expect(tokens.count == 2)
    }

    @Test("D5: a view cancels its own token from inside render, and a transaction cancels a token of its model")
    func reentrantCancel() {
        let model = CounterModel()
        let token = Locked<StateSubscription?>(nil)
        let view = ProbeView<Counter> { state in
            if state.count == 2 { token.withLock { $0 }?.cancel() }
        }
        token.withLock { $0 = model.subscribe(view: view) }
        model.increment()
        model.increment()
        model.increment()
        #expect(view.history.map(\.count) == [0, 1, 2])

        let other = StateRecorder<Counter>()
        let otherToken = model.subscribe(view: other)
        model.write {
            model.state.count = 10
            otherToken.cancel()
        }
        #expect(other.history.map(\.count) == [3])
        #expect(model.subscriberCount == 0)
    }
}
