import Sobreiro
import SobreiroTesting
import Testing

struct Summary: ViewState {
    var total = 0
    var updates = 0
}

final class SummaryModel: ViewModel<Summary>, @unchecked Sendable {
    let counter: CounterModel

    init(counter: CounterModel) {
        self.counter = counter
        super.init(initialState: Summary())
        subscribe(to: counter, onChange: SummaryModel.counterDidChange)
    }

    func counterDidChange(_ counter: Counter) {
        write {
            $0.total = counter.count
            $0.updates += 1
        }
    }
}

final class MirrorModel: ViewModel<Counter>, @unchecked Sendable {
    init() { super.init(initialState: Counter()) }

    func follow(_ other: MirrorModel) {
        subscribe(to: other, onChange: MirrorModel.mirror)
    }

    func mirror(_ other: Counter) {
        write { $0.count = other.count }
    }
}

@Suite("Composition")
struct CompositionTests {
    @Test("C1: onChange gets the current state at once, then every distinct change")
    func handlerReceivesCurrentThenChanges() {
        let counter = CounterModel(count: 3)
        let summary = SummaryModel(counter: counter)
        #expect(summary.state == Summary(total: 3, updates: 1))
        counter.increment()
        counter.write { $0.count += 0 }
        #expect(summary.state == Summary(total: 4, updates: 2))
    }

    @Test("C1: a closure subscription follows concurrent writers and converges")
    func closureSubscriptionConverges() async {
        let counter = CounterModel()
        let follower = CounterModel()
        follower.subscribe(to: counter) { [weak follower] state in
            follower?.write { $0.count = state.count }
        }
        await expectCompletes {
            race(times: 4) { _ in
                for _ in 0..<2_000 { counter.increment() }
            }
        }
        #expect(follower.state.count == 8_000)
    }

    @Test("C2: the publisher holds its follower weakly and drops it once deallocated")
    func followerIsHeldWeakly() {
        let counter = CounterModel()
        weak var weakFollower: CounterModel?
        let calls = RenderLog()
        do {
            let follower = CounterModel()
            weakFollower = follower
            follower.subscribe(to: counter) { _ in calls.record() }
            #expect(counter.subscriberCount == 1)
        }
        #expect(weakFollower == nil)
        #expect(counter.subscriberCount == 0)
        counter.increment()
        #expect(calls.count == 1)
    }

    @Test("C3: a parent that owns and follows a child through a method is freed when released")
    func unappliedMethodFormLeavesNoCycle() {
        weak var weakParent: SummaryModel?
        weak var weakChild: CounterModel?
        do {
            let parent = SummaryModel(counter: CounterModel())
            weakParent = parent
            weakChild = parent.counter
            parent.counter.increment()
            #expect(parent.state.total == 1)
        }
        #expect(weakParent == nil)
        #expect(weakChild == nil)
    }

    @Test("C4: models that follow each other settle without looping")
    func mutualSubscriptionsSettle() {
        let left = MirrorModel()
        let right = MirrorModel()
        left.follow(right)
        right.follow(left)
        let leftRecorder = StateRecorder(subscribedTo: left)
        left.write { $0.count = 5 }
        #expect(right.state.count == 5)
        right.write { $0.count = 9 }
        #expect(left.state.count == 9)
        #expect(leftRecorder.history.map(\.count) == [0, 5, 9])
    }

    @Test("C5: unsubscribe(from:) and the token stop the handler; repeating them does nothing")
    func unsubscribeStopsHandler() {
        let counter = CounterModel()
        let follower = CounterModel()
        let calls = RenderLog()
        follower.subscribe(to: counter) { _ in calls.record() }
        follower.unsubscribe(from: counter)
        follower.unsubscribe(from: counter)
        counter.increment()
        #expect(calls.count == 1)

        let token = follower.subscribe(to: counter) { _ in calls.record() }
        token.cancel()
        token.cancel()
        counter.increment()
        #expect(calls.count == 2)
        #expect(counter.subscriberCount == 0)
    }

    @Test("subscribing again to the same model keeps the live subscription, its handler and its token")
    func resubscribeKeeps() {
        let counter = CounterModel()
        let follower = CounterModel()
        let first = RenderLog()
        let second = RenderLog()
        let firstToken = follower.subscribe(to: counter) { _ in first.record() }
        let secondToken = follower.subscribe(to: counter) { _ in second.record() }
        follower.subscribe(to: counter, onChange: CounterModel.ignore)
        counter.increment()
        #expect(secondToken == firstToken)
        #expect(first.count == 2, "the first handler got the current state, then the change")
        #expect(second.count == 0, "the second handler was never installed")
        #expect(counter.subscriberCount == 1)
        secondToken.cancel()
        counter.increment()
        #expect(first.count == 2)
        #expect(counter.subscriberCount == 0)
    }

    @Test("once its subscription ends, subscribing again to the same model installs the new handler")
    func resubscribeAfterCancel() {
        let counter = CounterModel()
        let follower = CounterModel()
        let second = RenderLog()
        let oldToken = follower.subscribe(to: counter) { _ in }
        oldToken.cancel()
        let newToken = follower.subscribe(to: counter) { _ in second.record() }
        oldToken.cancel()
        counter.increment()
        #expect(newToken != oldToken)
        #expect(second.count == 2, "a stale token does not end the newer subscription")
        #expect(counter.subscriberCount == 1)
    }

    @Test("tokens are distinct values that can be kept in a set")
    func tokensAreHashable() {
        let counter = CounterModel()
        let first = CounterModel()
        let second = CounterModel()
        let tokens: Set = [
            first.subscribe(to: counter) { _ in },
            second.subscribe(to: counter) { _ in },
        ]
        #expect(tokens.count == 2)
        for token in tokens { token.cancel() }
        #expect(counter.subscriberCount == 0)
    }
}

extension CounterModel {
    fileprivate func ignore(_ counter: Counter) {}
}
