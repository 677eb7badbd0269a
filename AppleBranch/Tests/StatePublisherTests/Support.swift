import Combine
import Dispatch
import Sobreiro
import SobreiroCombine
import SobreiroPrimitives
import Synchronization
import Testing

struct Article: ViewState {
    var title = ""
    var count = 0
}

final class ArticleModel: ViewModel<Article>, @unchecked Sendable {
    init(count: Int = 0) {
        super.init(initialState: Article(count: count))
    }

    func setCount(_ count: Int) {
        write { $0.count = count }
    }
}

/// A subscriber that records what it receives, requests the demand it is told to, runs a hook inside each value,
/// and notices if it is ever called concurrently with itself.
final class Recorder<Input: Sendable>: Subscriber, @unchecked Sendable {
    typealias Failure = Never

    private let recorded = Locked<[Input]>([])
    private let inFlight = Atomic<Int>(0)
    private let overlaps = Atomic<Int>(0)
    private let storedSubscription = Locked<(any Subscription)?>(nil)
    private let initialDemand: Subscribers.Demand
    private let onValue: @Sendable (Recorder<Input>, Input) -> Subscribers.Demand

    /// - Parameters:
    ///   - initialDemand: Requested when the subscription arrives, unless `.none`.
    ///   - onValue: Runs inside each value and returns the demand to add.
    init(
        initialDemand: Subscribers.Demand = .unlimited,
        onValue: @escaping @Sendable (Recorder<Input>, Input) -> Subscribers.Demand = { _, _ in .none }
    ) {
        self.initialDemand = initialDemand
        self.onValue = onValue
    }

    var history: [Input] { recorded.withLock { $0 } }
    var overlappingCalls: Int { overlaps.load(ordering: .relaxed) }
    var subscription: (any Subscription)? { storedSubscription.withLock { $0 } }

    func receive(subscription: any Subscription) {
        storedSubscription.withLock { $0 = subscription }
        if initialDemand > 0 { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        if inFlight.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
            overlaps.add(1, ordering: .relaxed)
        }
        recorded.withLock { $0.append(input) }
        let more = onValue(self, input)
        inFlight.subtract(1, ordering: .acquiringAndReleasing)
        return more
    }

    func receive(completion: Subscribers.Completion<Never>) {
        Issue.record("a state publisher never completes")
    }

    func request(_ demand: Subscribers.Demand) {
        subscription?.request(demand)
    }

    func cancel() {
        subscription?.cancel()
    }

    /// Lets go of the subscription without cancelling it.
    func dropSubscription() {
        let dropped = storedSubscription.withLock { $0.take() }
        withExtendedLifetime(dropped) {}
    }
}

/// Holds a call on the thread that makes it until the test releases it.
final class Gate: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// Called from the held call: tells the test it is here, then waits for `release()`.
    func pause() {
        entered.signal()
        _ = released.wait(timeout: .now() + 20)
    }

    /// Waits, at most 20 seconds, until a call pauses; returns whether one did.
    func waitUntilPaused() -> Bool {
        entered.wait(timeout: .now() + 20) == .success
    }

    func release() {
        released.signal()
    }
}

/// A log that several threads append to, to check the order of what happened.
final class EventLog: Sendable {
    private let entries = Locked<[String]>([])
    func record(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// Whether `values` only ever increase.
func isIncreasing(_ values: [Int]) -> Bool {
    zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
}
