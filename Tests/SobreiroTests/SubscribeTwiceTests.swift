import Sobreiro
import SobreiroPrimitives
import Testing

/// Follows a counter, and records what each of its handlers receives.
final class TwiceFollower: ViewModel<Counter>, @unchecked Sendable {
    let first = Locked<[Int]>([])
    let second = Locked<[Int]>([])

    init() {
        super.init(initialState: Counter())
    }

    func firstDidChange(_ count: Int) {
        first.withLock { $0.append(count) }
    }

    func secondDidChange(_ count: Int) {
        second.withLock { $0.append(count) }
    }

    func firstStateDidChange(_ counter: Counter) {
        firstDidChange(counter.count)
    }

    func secondStateDidChange(_ counter: Counter) {
        secondDidChange(counter.count)
    }
}

/// One rule for every form (see `StateSource`): subscribing a subscriber again to the same source while its
/// subscription lives keeps that subscription, renders nothing again, installs nothing new and returns its token.
@Suite("Subscribing twice")
struct SubscribeTwiceTests {
    @Test("V3: a view subscribed twice to a model keeps one subscription and renders once")
    func viewOfModel() {
        let model = CounterModel()
        let view = ProbeView<Counter>()
        let first = model.subscribe(view: view)
        let second = model.subscribe(view: view)
        model.increment()
        #expect(second == first)
        #expect(view.history.map(\.count) == [0, 1])
        #expect(model.subscriberCount == 1)
    }

    @Test("V3: a view has one subscription per model, through the model or any projection of it")
    func viewOfProjections() {
        let model = CounterModel()
        let view = ProbeView<Counter>()
        let projection = model.map { $0 }
        let first = projection.subscribe(view: view)
        let again = projection.subscribe(view: view)
        let throughAnother = model.map { Counter(count: $0.count + 100) }.subscribe(view: view)
        let throughModel = model.subscribe(view: view)
        model.increment()
        #expect(again == first && throughAnother == first && throughModel == first)
        #expect(view.history.map(\.count) == [0, 1])
        #expect(model.subscriberCount == 1)
    }

    @Test("a model following a model again, by closure or method, keeps the first handler and its token")
    func followerOfModel() {
        let model = CounterModel()
        let follower = TwiceFollower()
        let first = follower.subscribe(to: model, onChange: TwiceFollower.firstStateDidChange)
        let byMethod = follower.subscribe(to: model, onChange: TwiceFollower.secondStateDidChange)
        let byClosure = follower.subscribe(to: model) { [follower] in follower.secondDidChange($0.count) }
        model.increment()
        #expect(byMethod == first && byClosure == first)
        #expect(follower.first.withLock { $0 } == [0, 1])
        #expect(follower.second.withLock { $0 }.isEmpty)
        #expect(model.subscriberCount == 1)
    }

    @Test("V7: a model following one projection again keeps the first handler and its token")
    func followerOfOneProjection() {
        let model = CounterModel()
        let follower = TwiceFollower()
        let count = model.map(\.count)
        let first = follower.subscribe(to: count, onChange: TwiceFollower.firstDidChange)
        let byMethod = follower.subscribe(to: count, onChange: TwiceFollower.secondDidChange)
        let byClosure = follower.subscribe(to: count) { [follower] in follower.secondDidChange($0) }
        model.increment()
        #expect(byMethod == first && byClosure == first)
        #expect(follower.first.withLock { $0 } == [0, 1])
        #expect(follower.second.withLock { $0 }.isEmpty)
        #expect(model.subscriberCount == 1)
    }

    @Test("V7: each projection is a source of its own, so a model follows several parts of another")
    func followerOfSeveralProjections() {
        let model = CounterModel()
        let follower = TwiceFollower()
        let first = follower.subscribe(to: model.map(\.count), onChange: TwiceFollower.firstDidChange)
        let second = follower.subscribe(to: model.map(\.count), onChange: TwiceFollower.secondDidChange)
        let whole = follower.subscribe(to: model) { _ in }
        model.increment()
        #expect(first != second && whole != first && whole != second)
        #expect(follower.first.withLock { $0 } == [0, 1])
        #expect(follower.second.withLock { $0 } == [0, 1])
        #expect(model.subscriberCount == 3)
    }

    @Test("once the subscription ends, subscribing again installs the new view or handler")
    func subscribingAfterTheEnd() {
        let model = CounterModel()
        let follower = TwiceFollower()
        let count = model.map(\.count)
        let old = follower.subscribe(to: count, onChange: TwiceFollower.firstDidChange)
        old.cancel()
        let new = follower.subscribe(to: count, onChange: TwiceFollower.secondDidChange)
        old.cancel()
        model.increment()
        #expect(new != old)
        #expect(follower.first.withLock { $0 } == [0])
        #expect(follower.second.withLock { $0 } == [0, 1])
    }

    @Test("each iterator of states is a subscriber of its own")
    func sequences() {
        let model = CounterModel()
        let states = model.states
        let first = states.makeAsyncIterator()
        let second = model.map(\.count).states.makeAsyncIterator()
        #expect(model.subscriberCount == 2)
        withExtendedLifetime((first, second)) {}
    }
}

@Suite("Subscribing twice on the main actor")
@MainActor
struct MainActorSubscribeTwiceTests {
    @Test("V3, V4: a main-actor view subscribed twice, to the model and a projection, keeps one subscription")
    func mainActorView() {
        let model = CounterModel()
        let label = MainLabel()
        let first = model.subscribe(view: label)
        let second = model.subscribe(view: label)
        let throughProjection = model.map { $0 }.subscribe(view: label)
        model.increment()
        #expect(second == first && throughProjection == first)
        #expect(label.rendered.map(\.count) == [0, 1])
        #expect(model.subscriberCount == 1)
    }

    @Test("V5: a main-actor model following a model or a projection again keeps the first handler")
    func mainActorFollower() {
        let model = CounterModel()
        let follower = TwiceMainActorFollower()
        let count = model.map(\.count)
        let first = follower.subscribe(to: model) { @MainActor [follower] in follower.record("first", $0.count) }
        let again = follower.subscribe(to: model, onChange: TwiceMainActorFollower.secondDidChange)
        let firstOfCount = follower.subscribe(to: count) { @MainActor [follower] in follower.record("count", $0) }
        let againOfCount = follower.subscribe(to: count) { @MainActor [follower] in follower.record("again", $0) }
        model.increment()
        #expect(again == first && againOfCount == firstOfCount && first != firstOfCount)
        #expect(follower.calls.sorted() == ["count 0", "count 1", "first 0", "first 1"])
        #expect(model.subscriberCount == 2)
    }
}

@MainActor
final class TwiceMainActorFollower: ViewModel<Counter>, @unchecked Sendable {
    var calls: [String] = []

    init() {
        super.init(initialState: Counter())
    }

    func record(_ name: String, _ count: Int) {
        calls.append("\(name) \(count)")
    }

    func secondDidChange(_ counter: Counter) {
        record("second", counter.count)
    }
}
