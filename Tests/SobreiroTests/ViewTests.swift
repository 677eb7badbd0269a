import Sobreiro
import SobreiroTesting
import TestSupport
import Testing

@Suite("Views")
struct ViewTests {
    @Test("V1: subscribe renders the current state before it returns")
    func subscribeRendersAtOnce() {
        let model = CounterModel(count: 4)
        let recorder = StateRecorder<Counter>()
        model.subscribe(view: recorder)
        #expect(recorder.history == [Counter(count: 4)])
    }

    @Test("V2: a deallocated view is never called and stops counting")
    func deadViewsAreDropped() {
        let model = CounterModel()
        let log = RenderLog()
        weak var weakView: LoggingView?
        do {
            let view = LoggingView(log: log)
            weakView = view
            model.subscribe(view: view)
            #expect(model.subscriberCount == 1)
        }
        #expect(weakView == nil, "the model must not keep its view alive")
        #expect(model.subscriberCount == 0)
        model.increment()
        #expect(log.count == 1, "only the first render, made while the view was alive")
    }

    @Test(
        "V2: a new object at the address of a dead subscriber is a new subscriber",
        .disabled(if: isAddressSanitizerActive, "AddressSanitizer's allocator does not hand freed addresses back soon")
    )
    func addressReuseIsANewSubscriber() throws {
        let model = CounterModel()
        let log = RenderLog()
        let newcomer = try #require(viewReusingTheAddressOfADeadSubscriber(of: model, log: log))
        let rendersBefore = log.count
        model.subscribe(view: newcomer)
        #expect(log.count == rendersBefore + 1, "the newcomer gets its first render")
        #expect(model.subscriberCount == 1)
        model.increment()
        #expect(log.count == rendersBefore + 2)
    }

    @Test("V3: subscribing the same view twice keeps one subscription and renders once")
    func duplicateSubscribeIsIgnored() {
        let model = CounterModel()
        let recorder = StateRecorder<Counter>()
        model.subscribe(view: recorder)
        model.subscribe(view: recorder)
        #expect(model.subscriberCount == 1)
        model.increment()
        #expect(recorder.history == [Counter(), Counter(count: 1)])
    }

    @Test("V3: unsubscribing a view that is not subscribed does nothing")
    func unsubscribeUnknownViewIsHarmless() {
        let model = CounterModel()
        let subscribed = StateRecorder<Counter>()
        let stranger = StateRecorder<Counter>()
        model.subscribe(view: subscribed)
        model.unsubscribe(view: stranger)
        #expect(model.subscriberCount == 1, "unsubscribing a stranger leaves the one subscriber in place")
        let another = StateRecorder<Counter>()
        model.subscribe(view: another)
        model.unsubscribe(view: stranger)
        #expect(model.subscriberCount == 2, "and so it does among many")
        model.unsubscribe(view: another)
        model.unsubscribe(view: subscribed)
        model.unsubscribe(view: subscribed)
        model.increment()
        #expect(model.subscriberCount == 0)
        #expect(subscribed.history == [Counter()])
        #expect(stranger.history.isEmpty)
    }

    @Test("subscribe and unsubscribe stay exact with 10 000 views, in any order", arguments: [1, 2, 10_000])
    func manySubscribers(count: Int) {
        let model = CounterModel()
        let views = (0..<count).map { _ in StateRecorder<Counter>() }
        for view in views { model.subscribe(view: view) }
        #expect(model.subscriberCount == count)
        for view in views.enumerated() where view.offset.isMultiple(of: 2) {
            model.unsubscribe(view: view.element)
        }
        model.increment()
        for (index, view) in views.enumerated() {
            #expect(view.history.count == (index.isMultiple(of: 2) ? 1 : 2))
        }
        // Views are held weakly, and optimized code may release `views` after its last use.
        withExtendedLifetime(views) { #expect(model.subscriberCount == count / 2) }
    }

    @Test("a view subscribed inside a transaction gets the committed state when the transaction ends")
    func subscribeInsideTransaction() {
        let model = CounterModel()
        let recorder = StateRecorder<Counter>()
        model.write {
            model.state.count = 1
            model.subscribe(view: recorder)
            #expect(recorder.history.isEmpty, "never a draft")
            model.state.count = 2
        }
        #expect(recorder.history == [Counter(count: 2)])
    }

    @Test("a view subscribed inside a transaction that throws still gets the state, and delivery goes on")
    func subscribeInsideThrowingTransaction() {
        struct Failure: Error {}
        let model = CounterModel()
        let recorder = StateRecorder<Counter>()
        #expect(throws: Failure.self) {
            try model.write {
                model.state.count = 1
                model.subscribe(view: recorder)
                throw Failure()
            }
        }
        #expect(recorder.history == [Counter()])
        model.increment()
        #expect(recorder.history == [Counter(), Counter(count: 1)])
    }

    @Test("dead views are pruned as subscribers come and go")
    func deadViewsDoNotAccumulate() {
        let model = CounterModel()
        let keeper = StateRecorder<Counter>()
        model.subscribe(view: keeper)
        for _ in 0..<1_000 {
            model.subscribe(view: StateRecorder<Counter>())
        }
        #expect(model.subscriberCount == 1)
        model.increment()
        #expect(keeper.history.count == 2)
    }
}

/// Subscribes a view to `model`, lets it die, and allocates views until one lands at its address. The allocator
/// usually hands the freed block back within a few allocations; a few rounds make that near certain.
private func viewReusingTheAddressOfADeadSubscriber(of model: CounterModel, log: RenderLog) -> LoggingView? {
    for _ in 0..<100 {
        var deadAddress: ObjectIdentifier?
        do {
            let view = LoggingView(log: log)
            deadAddress = ObjectIdentifier(view)
            model.subscribe(view: view)
        }
        var keptAlive: [LoggingView] = []
        keptAlive.reserveCapacity(256)
        for _ in 0..<256 {
            let candidate = LoggingView(log: log)
            if ObjectIdentifier(candidate) == deadAddress { return candidate }
            keptAlive.append(candidate)
        }
    }
    return nil
}
