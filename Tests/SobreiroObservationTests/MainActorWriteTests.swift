import Dispatch
import Foundation
import Sobreiro
import SobreiroObservation
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// The kinds of main-actor followers that a write made on the main actor brings up to date before it returns.
enum MainActorFollower: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case observedModel = "an observed model"
    case observedProjection = "an observed projection"
    case view = "a main-actor view"
    case projectionView = "a main-actor view of a projection"
    /// The path that the routes of SobreiroScopeKit take.
    case projectionHandler = "a main-actor handler of a projection"

    var testDescription: String { rawValue }
}

/// The part of the state that the followers show: the query the main actor types, and a count other threads
/// write, which tells the order of the states.
struct Shown: Equatable, Sendable {
    var query = ""
    var count = 0

    init(query: String = "", count: Int = 0) {
        self.query = query
        self.count = count
    }

    init(_ state: ScreenState) {
        self.init(query: state.query, count: state.count)
    }
}

/// One main-actor follower of a model, of the given kind, and what it shows.
@MainActor
final class ShownFollower {
    /// What the follower shows now.
    private(set) var read: @MainActor () -> Shown = { Shown() }
    /// What a view or handler was handed, in order; observed objects hand over nothing countable.
    fileprivate(set) var history: [Shown] = []
    private var kept: [AnyObject] = []

    var shown: Shown { read() }

    init(following model: ScreenModel, as kind: MainActorFollower) {
        switch kind {
        case .observedModel:
            let object = model.observed()
            kept = [object]
            read = { Shown(query: object.query, count: object.count) }
        case .observedProjection:
            let object = model.map(Shown.init).observed()
            kept = [object]
            read = { object.state }
        case .view:
            let view = ShownView<ScreenState>(into: self) { Shown($0) }
            kept = [view]
            model.subscribe(view: view)
            read = { [unowned self] in history.last ?? Shown() }
        case .projectionView:
            let view = ShownView<Shown>(into: self) { $0 }
            kept = [view]
            model.map(Shown.init).subscribe(view: view)
            read = { [unowned self] in history.last ?? Shown() }
        case .projectionHandler:
            let follower = ScreenModel()
            kept = [follower]
            follower.subscribe(to: model.map(Shown.init)) { @MainActor [weak self] shown in
                self?.history.append(shown)
            }
            read = { [unowned self] in history.last ?? Shown() }
        }
    }
}

/// A main-actor view that appends what it renders to its follower's history.
@MainActor
private final class ShownView<State: Equatable & Sendable>: MainActorStatefulView {
    private unowned let follower: ShownFollower
    private let shown: (State) -> Shown

    init(into follower: ShownFollower, _ shown: @escaping (State) -> Shown) {
        self.follower = follower
        self.shown = shown
    }

    func render(state: State) {
        follower.history.append(shown(state))
    }
}

/// A main-actor view of a projection whose transform holds the thread that runs it the first time it projects a
/// state matching `isHeld` off the main thread: that thread is then inside the view's hand-over.
@MainActor
private final class QueryView: MainActorStatefulView {
    var query = ""
    func render(state: String) { query = state }
}

@Suite("A write on the main actor brings the main-actor followers up to date before it returns")
@MainActor
struct MainActorWriteTests {
    /// Another thread's delivery is held in a plain view's render, before or after it handed its state to the
    /// follower: that thread stays the deliverer, so the main actor's writes only ask it for another round. Each of
    /// them must still reach the follower before it returns.
    @Test(
        "O1, V4: a main-actor write reaches every kind of main-actor follower before it returns, while another thread delivers",
        arguments: MainActorFollower.allCases, [false, true]
    )
    func writeWhileAnotherThreadDelivers(follower kind: MainActorFollower, isHeldBeforeFollower: Bool) async {
        let model = ScreenModel()
        let held = HeldRender { $0.count == 1 }
        if isHeldBeforeFollower { model.subscribe(view: held) }
        let follower = ShownFollower(following: model, as: kind)
        if !isHeldBeforeFollower { model.subscribe(view: held) }
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        #expect(await held.hold.isHeld())

        for query in ["o", "oa", "oak"] {
            model.search(for: query)
            #expect(follower.shown == Shown(query: query, count: 1), "the write returned before reaching \(kind)")
        }
        // The state that the held thread handed over before these writes reaches the main actor now: it is older.
        await drainMainQueue()
        #expect(follower.shown == Shown(query: "oak", count: 1), "an older state took \(kind) back")

        held.hold.release()
        #expect(await finished(writer))
        await drainMainQueue()
        #expect(follower.shown == Shown(query: "oak", count: 1))
        #expect(zip(follower.history, follower.history.dropFirst()).allSatisfy { $0.query.count <= $1.query.count })
    }

    /// States race from another thread, which writes the count, while the main actor writes the query: each main
    /// actor write is current when it returns, and the follower never goes back to an older state.
    @Test(
        "O1, D3: main-actor writes racing another thread's are current when they return, and never followed by an older state",
        .serialized,  // one writing thread at a time: each keeps a core busy while it runs
        arguments: MainActorFollower.allCases
    )
    func racingWritesStayOrdered(follower kind: MainActorFollower) async {
        let model = ScreenModel()
        let slow = SlowView()
        model.subscribe(view: slow)
        let follower = ShownFollower(following: model, as: kind)
        let stop = Atomic<Bool>(false)
        // Bounded, so that a main actor held up by other tests does not leave it spinning.
        let writer = onAnotherThread {
            for _ in 0..<20_000 where !stop.load(ordering: .relaxed) { model.write { $0.count += 1 } }
        }

        var stale = 0
        var backwards = 0
        var last = follower.shown
        for step in 1...300 {
            model.search(for: String(repeating: "k", count: step))
            let shown = follower.shown
            if shown.query.count != step { stale += 1 }
            if shown.count < last.count || shown.query.count < last.query.count { backwards += 1 }
            last = shown
            await Task.yield()
            let afterYield = follower.shown
            if afterYield.count < last.count || afterYield.query.count < last.query.count { backwards += 1 }
            last = afterYield
        }
        stop.store(true, ordering: .relaxed)
        #expect(await finished(writer))
        await drainMainQueue()
        await drainMainQueue()

        #expect(stale == 0, "\(stale) of 300 main-actor writes had not reached \(kind) when they returned")
        #expect(backwards == 0, "\(kind) went back to an older state \(backwards) times")
        #expect(follower.shown == Shown(model.state), "\(kind) did not end on the latest state")
        let history = follower.history
        #expect(zip(history, history.dropFirst()).allSatisfy { $0.count <= $1.count && $0.query <= $1.query })
        withExtendedLifetime(slow) {}
    }

    /// The other thread is inside the follower's own hand-over (a projection's transform) when the main actor
    /// writes: the write waits for that short call to return, then brings the follower up to date.
    @Test("V4: a main-actor write made while another thread hands the follower a state waits for it, then is current")
    func writeWhileAnotherThreadHandsOverToTheFollower() async {
        let model = ScreenModel()
        let transform = Hold()
        let view = QueryView()
        let token = model.map { state in
            if !Thread.isMainThread, state.count == 1 { transform.holdOnce() }
            return state.query
        }.subscribe(view: view)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        #expect(await transform.isHeld())
        // Lets the held call go once the main actor waits for it: the test cannot, being that main actor.
        let releaser = onAnotherThread {
            let deadline = DispatchTime.now() + patience
            while !token.isWaitedForByCancel && DispatchTime.now() < deadline { usleep(100) }
            transform.release()
        }

        model.search(for: "oak")
        #expect(view.query == "oak", "the write returned before the view had its state")

        #expect(await finished(releaser))
        #expect(await finished(writer))
        await drainMainQueue()
        #expect(view.query == "oak")
        token.cancel()
    }

    /// A main-actor write that finds a state waiting in a follower's hop hands it over through that hop: a view
    /// subscribed again keeps its subscription, whose states still go through the hop of the first subscribe.
    @Test("V3, V4: a main-actor view subscribed again keeps the hop its states go through")
    func subscribingAgainKeepsTheHop() {
        let model = ScreenModel()
        let view = QueryView()
        let first = model.map(\.query).subscribe(view: view)
        let hop = first.mainActorHop
        let second = model.map(\.query).subscribe(view: view)

        #expect(second === first, "the live subscription was kept")
        #expect(hop != nil && second.mainActorHop === hop, "the kept subscription points at a hop it does not use")
        first.cancel()
    }

    /// A renderer that writes its model from its own render, while another thread delivers: the nested write reaches
    /// it right after that render, before the outer write returns, never inside it; nothing deadlocks.
    @Test("D5: a main-actor render that writes its model while another thread delivers is rendered again right after")
    func renderThatWritesWhileAnotherThreadDelivers() async {
        let model = ScreenModel()
        let held = HeldRender { $0.count == 1 }
        model.subscribe(view: held)
        let echo = EchoView(model: model)
        model.subscribe(view: echo)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        #expect(await held.hold.isHeld())

        model.search(for: "oak")
        #expect(echo.rendered.last == "OAK", "the view's own write did not reach it before the outer write returned")
        #expect(echo.deepest == 1, "the view was rendered inside its own render")
        #expect(model.state.query == "OAK")

        held.hold.release()
        #expect(await finished(writer))
        await drainMainQueue()
        #expect(echo.rendered.last == "OAK")
    }
}

/// A main-actor view that writes its query back in capitals from its render.
@MainActor
private final class EchoView: MainActorStatefulView {
    let model: ScreenModel
    var rendered: [String] = []
    var depth = 0
    var deepest = 0

    init(model: ScreenModel) {
        self.model = model
    }

    func render(state: ScreenState) {
        depth += 1
        deepest = max(deepest, depth)
        defer { depth -= 1 }
        rendered.append(state.query)
        if state.query != state.query.uppercased() { model.search(for: state.query.uppercased()) }
    }
}
