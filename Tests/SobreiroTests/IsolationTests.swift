import Dispatch
import Sobreiro
import SobreiroTesting
import Testing

struct Title: ViewState {
    var text = ""
}

/// A model isolated to the main actor that follows a counter with the README's unapplied-method form.
@MainActor
final class TitleViewModel: ViewModel<Title>, @unchecked Sendable {
    private(set) var callsOffMainQueue = 0
    private(set) var received: [Int] = []

    init(counter: CounterModel) {
        super.init(initialState: Title())
        subscribe(to: counter, onChange: TitleViewModel.counterDidChange)
    }

    func counterDidChange(_ counter: Counter) {
        if !MainQueueProbe.isCurrent { callsOffMainQueue += 1 }
        received.append(counter.count)
        update { Title(text: "\(counter.count)") }
    }
}

/// A main-actor model that follows another through a `@MainActor` closure.
@MainActor
final class MainActorFollower: ViewModel<Title>, @unchecked Sendable {
    private(set) var received: [Int] = []
    private(set) var callsOffMainQueue = 0

    init() { super.init(initialState: Title()) }

    func follow(_ counter: CounterModel) -> StateSubscription {
        subscribe(to: counter) { @MainActor [weak self] counter in
            guard let self else { return }
            if !MainQueueProbe.isCurrent { callsOffMainQueue += 1 }
            received.append(counter.count)
        }
    }
}

/// Tells whether the caller runs on the main dispatch queue.
enum MainQueueProbe {
    private static let key: DispatchSpecificKey<Void> = {
        let key = DispatchSpecificKey<Void>()
        DispatchQueue.main.setSpecific(key: key, value: ())
        return key
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) != nil }
}

/// Yields to the main actor until `condition` holds, for at most about ten thousand turns.
@MainActor
func settle(until condition: @MainActor () -> Bool) async {
    for _ in 0..<10_000 where !condition() {
        await Task.yield()
    }
}

@Suite("Isolation")
@MainActor
struct IsolationTests {
    @Test("V5: a @MainActor model's unapplied method runs on the main actor, even for a detached writer")
    func mainActorMethodRunsOnMainActor() async {
        let counter = CounterModel()
        let title = TitleViewModel(counter: counter)
        #expect(title.received == [0], "the current state arrives before subscribe returns")
        await Task.detached { for _ in 0..<500 { counter.increment() } }.value
        await settle { title.received.last == 500 }
        #expect(title.received.last == 500)
        #expect(title.callsOffMainQueue == 0)
        #expect(isStrictlyIncreasing(title.received))
        #expect(title.state == Title(text: "500"))
    }

    @Test("V5: a main-actor write reaches a @MainActor follower before it returns")
    func mainActorWriteIsSynchronous() {
        let counter = CounterModel()
        let title = TitleViewModel(counter: counter)
        counter.increment()
        #expect(title.received == [0, 1])
    }

    @Test("V5: a @MainActor closure follows on the main actor; its token ends it")
    func mainActorClosureForm() async {
        let counter = CounterModel()
        let follower = MainActorFollower()
        let token = follower.follow(counter)
        await Task.detached { for _ in 0..<200 { counter.increment() } }.value
        await settle { follower.received.last == 200 }
        #expect(follower.received.last == 200)
        #expect(follower.callsOffMainQueue == 0)
        token.cancel()
        await Task.detached { counter.increment() }.value
        for _ in 0..<100 { await Task.yield() }
        #expect(follower.received.last == 200)
        #expect(counter.subscriberCount == 0)
    }

    @Test("C2, C3: a @MainActor model following through its method is released with no cycle")
    func mainActorFollowerIsReleased() async {
        let counter = CounterModel()
        weak var weakTitle: TitleViewModel?
        do {
            let title = TitleViewModel(counter: counter)
            weakTitle = title
            await Task.detached { counter.increment() }.value
        }
        #expect(weakTitle == nil)
        await Task.detached { counter.increment() }.value
        for _ in 0..<100 { await Task.yield() }
        #expect(counter.subscriberCount == 0)
    }

    @Test("V4: a main-actor view's token cancelled from another thread drops the scheduled render")
    func mainActorViewTokenCancelledFromBackground() async {
        let model = CounterModel()
        let label = MainLabel()
        let token = model.subscribe(view: label)
        // The main actor stays busy while another thread writes and cancels, so the render is still scheduled.
        DispatchQueue.global().sync {
            model.increment()
            token.cancel()
        }
        for _ in 0..<100 { await Task.yield() }
        #expect(label.rendered == [Counter()])
        #expect(model.subscriberCount == 0)
    }

    @Test("V4: a main-actor view is not rendered twice with an equal state after a background burst")
    func mainActorViewSkipsEqualState() async {
        let model = CounterModel()
        let label = MainLabel()
        model.subscribe(view: label)
        // Both writes land while the main actor is busy, so they coalesce into one scheduled render of 0.
        DispatchQueue.global().sync {
            model.increment()
            model.write { $0.count = 0 }
        }
        for _ in 0..<100 { await Task.yield() }
        #expect(label.rendered == [Counter()])
    }
}

/// What the compiler's `@preconcurrency` fix-it produces: a main-actor renderer behind a plain conformance.
@MainActor
final class PreconcurrencyLabel: @preconcurrency StatefulView {
    func render(state: Counter) {}
}

@Suite("Isolation escapes")
struct IsolationEscapeTests {
    @Test("V5: a @preconcurrency StatefulView conformance stops the program instead of rendering off the main actor")
    func preconcurrencyConformanceTraps() async {
        await #expect(processExitsWith: .failure) {
            let model = CounterModel()
            await subscribePreconcurrencyLabel(to: model)
            await Task.detached { model.increment() }.value
        }
    }
}

/// Subscribes a `PreconcurrencyLabel` that stays alive for the rest of the process.
@MainActor
private func subscribePreconcurrencyLabel(to model: CounterModel) {
    let label = PreconcurrencyLabel()
    model.subscribe(view: label)
    keptAlive = label
}

@MainActor private var keptAlive: AnyObject?
