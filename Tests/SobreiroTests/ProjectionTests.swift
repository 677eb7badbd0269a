import Sobreiro
import SobreiroPrimitives
import SobreiroTesting
import Testing

struct Screen: ViewState {
    var header = Header()
    var items: [String] = []
    var selection: Int?
}

struct Header: ViewState {
    var title = ""
}

/// Follows two parts of a screen through unapplied methods.
final class BadgeModel: ViewModel<Counter>, @unchecked Sendable {
    let counts = Locked<[Int]>([])
    let selections = Locked<[Int?]>([])

    init(screen: ViewModel<Screen>) {
        super.init(initialState: Counter())
        subscribe(to: screen.map(\.items.count), onChange: BadgeModel.countDidChange)
        subscribe(to: screen.map(\.selection), onChange: BadgeModel.selectionDidChange)
    }

    func countDidChange(_ count: Int) {
        counts.withLock { $0.append(count) }
        write { $0.count = count }
    }

    func selectionDidChange(_ selection: Int?) {
        selections.withLock { $0.append(selection) }
    }
}

@Suite("Projections")
struct ProjectionTests {
    @Test("V7: a view of a projection renders at once, then only when the projected value changes")
    func projectedViewRendersOnlyOnChange() {
        let screen = ViewModel(initialState: Screen())
        let headerView = StateRecorder<Header>()
        screen.map(\.header).subscribe(view: headerView)
        screen.write { $0.items.append("oak") }
        screen.write { $0.header.title = "Trees" }
        screen.write { $0.selection = 0 }
        #expect(headerView.history == [Header(), Header(title: "Trees")])
    }

    @Test("V7: one model follows several projections of another, each called only on its own changes")
    func severalProjectionsOfOneModel() {
        let screen = ViewModel(initialState: Screen())
        let badge = BadgeModel(screen: screen)
        screen.write { $0.header.title = "Trees" }
        screen.write { $0.items = ["oak", "cork"] }
        screen.write { $0.selection = 1 }
        screen.write { $0.items = ["pine", "fir"] }
        #expect(badge.counts.withLock { $0 } == [0, 2])
        #expect(badge.selections.withLock { $0 } == [nil, 1])
        #expect(screen.subscriberCount == 2)
        badge.unsubscribe(from: screen)
        #expect(screen.subscriberCount == 0)
    }

    @Test("V7: projections hold across a composition chain: the end of the chain hears only its value's changes")
    func projectionsAcrossAChain() {
        let screen = ViewModel(initialState: Screen())
        let badge = BadgeModel(screen: screen)
        let parity = StateRecorder<Parity>()
        badge.map { Parity(isEven: $0.count.isMultiple(of: 2)) }.subscribe(view: parity)
        for count in 1...6 {
            screen.write { $0.items = Array(repeating: "oak", count: count) }
        }
        screen.write { $0.selection = 3 }
        #expect(badge.state.count == 6)
        #expect(parity.history.map(\.isEven) == [true, false, true, false, true, false, true])
    }

    @Test("V7: a projection of a projection delivers the derived value, deduplicated at the end")
    func projectionOfAProjection() {
        let screen = ViewModel(initialState: Screen(items: ["oak"]))
        let counts = Locked<[Bool]>([])
        let follower = CounterModel()
        follower.subscribe(to: screen.map(\.items).map(\.isEmpty)) { isEmpty in
            counts.withLock { $0.append(isEmpty) }
        }
        screen.write { $0.items.append("cork") }
        screen.write { $0.items = [] }
        screen.write { $0.header.title = "none" }
        #expect(counts.withLock { $0 } == [false, true])
    }

    @Test("V7: a projection token ends only its own subscription")
    func projectionTokenEndsItsOwnSubscription() {
        let screen = ViewModel(initialState: Screen())
        let follower = CounterModel()
        let titles = Locked<[String]>([])
        let counts = Locked<[Int]>([])
        let titleToken = follower.subscribe(to: screen.map(\.header.title)) { title in
            titles.withLock { $0.append(title) }
        }
        follower.subscribe(to: screen.map(\.items.count)) { count in counts.withLock { $0.append(count) } }
        titleToken.cancel()
        screen.write {
            $0.header.title = "Trees"
            $0.items = ["oak"]
        }
        #expect(titles.withLock { $0 } == [""])
        #expect(counts.withLock { $0 } == [0, 1])
    }

    @Test("V2, C2: projections hold their subscribers weakly")
    func projectionSubscribersAreWeak() {
        let screen = ViewModel(initialState: Screen())
        let calls = RenderLog()
        do {
            let headerView = StateRecorder<Header>()
            let follower = CounterModel()
            screen.map(\.header).subscribe(view: headerView)
            follower.subscribe(to: screen.map(\.selection)) { _ in calls.record() }
            #expect(screen.subscriberCount == 2)
        }
        #expect(screen.subscriberCount == 0)
        screen.write { $0.selection = 2 }
        #expect(calls.count == 1)
    }
}

struct Parity: ViewState {
    var isEven: Bool
}

@Suite("Projections on the main actor")
@MainActor
struct MainActorProjectionTests {
    @Test("V7, V4: a main-actor view of a projection renders on the main actor, only on changes, ending on the latest")
    func mainActorProjectedView() async {
        let counter = CounterModel()
        let label = ParityLabel()
        counter.map { Parity(isEven: $0.count.isMultiple(of: 2)) }.subscribe(view: label)
        counter.increment()
        counter.write { $0.label = "unrelated" }
        #expect(label.rendered == [true, false])
        await Task.detached { for _ in 0..<101 { counter.increment() } }.value
        await settle { label.rendered.last == counter.state.count.isMultiple(of: 2) && label.rendered.count > 2 }
        #expect(label.rendered.last == true)
        #expect(zip(label.rendered, label.rendered.dropFirst()).allSatisfy { $0 != $1 }, "equal values re-rendered")
    }
}

@MainActor
final class ParityLabel: MainActorStatefulView {
    var rendered: [Bool] = []

    func render(state: Parity) {
        #expect(MainQueueProbe.isCurrent)
        rendered.append(state.isEven)
    }
}
