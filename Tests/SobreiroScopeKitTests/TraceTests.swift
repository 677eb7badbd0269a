import Dispatch
import ScopeKit
import Sobreiro
import SobreiroObservation
import SobreiroPrimitives
import SobreiroScopeKit
import TestSupport
import Testing

private struct Oops: Error {}

/// Collects the events about the given subjects while installed.
private final class Collector: Sendable {
    private let subjects: Set<ObjectIdentifier>
    private let collected = Locked<[TraceEvent]>([])

    init(_ subjects: AnyObject...) {
        self.subjects = Set(subjects.map(ObjectIdentifier.init))
        Trace.install { [self] event in
            guard self.subjects.contains(event.subject) else { return }
            collected.withLock { $0.append(event) }
        }
    }

    var kinds: [TraceEvent.Kind] { collected.withLock { $0.map(\.kind) } }
    var events: [TraceEvent] { collected.withLock { $0 } }
}

/// The trace is one global switch, so its tests run one at a time; other suites never install it.
@Suite("Trace", .serialized)
@MainActor
struct TraceTests {
    @Test("transactions report committed, deduplicated and rolled back, and deliveries name the subscriber")
    func transactions() throws {
        let model = ViewModel(initialState: Feed())
        let view = FeedView()
        model.subscribe(view: view)
        let trace = Collector(model)
        defer { Trace.uninstall() }

        model.write { $0.count = 1 }
        model.write { $0.count = 1 }
        try? model.write { (_: borrowing Draft<Feed>) throws(Oops) in throw Oops() }

        #expect(trace.kinds == [.committed, .delivered(to: "FeedView"), .deduplicated, .rolledBack])
        #expect(trace.events.first?.subjectType == "ViewModel<Feed>")
        #expect(trace.events.first?.description.hasPrefix("ViewModel<Feed> committed [") == true)
    }

    @Test("an observed object names the fields read from it that a new state changed")
    func observedFields() {
        let model = ViewModel(initialState: Feed())
        let observed = model.observed()
        _ = observed.query
        _ = observed.count
        let trace = Collector(observed)
        defer { Trace.uninstall() }

        // Written on the main actor, so the object takes each state before the write returns.
        model.write {
            $0.count = 1
            $0.level = 1
        }
        model.write { $0.level = 2 }

        #expect(trace.kinds == [.invalidated(fields: ["\\Feed.count"]), .invalidated(fields: [])])
        #expect(trace.events.first?.description.hasPrefix("ObservedState<Feed> invalidates \\Feed.count [") == true)
    }

    @Test("a scope tree reports its transitions and hooks, and a bound model its own hooks, in order")
    func lifecycle() {
        let root = RootScope()
        let screen = Behavior()
        let model = FeedModel()
        screen.bind(model)
        let trace = Collector(screen, model)
        defer { Trace.uninstall() }

        root.host(screen)
        screen.detach()

        #expect(
            trace.kinds == [
                .transition(from: "detached", to: "attached"), .hook("willAttach"),
                .transition(from: "attached", to: "active"), .hook("willActivate"),
                .hook("didLoad"), .hook("didBecomeActive"),
                .hook("willDeactivate"), .transition(from: "active", to: "attached"),
                .hook("didBecomeInactive"), .hook("didDeactivate"),
                .hook("willDetach"), .transition(from: "attached", to: "detached"), .hook("didDetach"),
            ])
    }

    @Test("a change that a projection filters out reports no delivery; a change it lets through reports one")
    func filteredDelivery() {
        let model = ViewModel(initialState: Feed())
        let view = CountView()
        model.map { Tally(count: $0.count) }.subscribe(view: view)
        let follower = ViewModel(initialState: Feed())
        follower.subscribe(to: model.map(\.count)) { _ in }
        let trace = Collector(model)
        defer { Trace.uninstall() }

        model.write { $0.query = "oak" }
        model.write { $0.count = 1 }

        #expect(view.rendered == [0, 1])
        #expect(
            trace.kinds == [
                .committed,
                .committed, .delivered(to: "CountView"), .delivered(to: "ViewModel<Feed>"),
            ]
                || trace.kinds == [
                    .committed,
                    .committed, .delivered(to: "ViewModel<Feed>"), .delivered(to: "CountView"),
                ])
    }

    @Test("a write from another thread reports the hop to a main-actor view")
    func hops() async {
        let model = ViewModel(initialState: Feed())
        let view = MainActorFeedView()
        model.subscribe(view: view)
        let trace = Collector(model, view)
        defer { Trace.uninstall() }

        await Task.detached { model.write { $0.count = 1 } }.value
        _ = await firstState(of: model) { $0.count == 1 }

        #expect(trace.kinds.contains(.hopped(to: "MainActorFeedView")))
        #expect(trace.events.first { $0.kind == .committed }?.thread.hasPrefix("thread") == true)
    }

    @Test("a long trace costs the same per event: 200 000 events on a small stack")
    func longTrace() async {
        let model = ViewModel(initialState: Feed())
        let trace = Collector(model)
        defer { Trace.uninstall() }

        await Task.detached {
            for count in 1...200_000 { model.write { $0.count = count } }
        }.value

        #expect(trace.kinds.count == 200_000)
    }

    @Test("a handler that another replaces is let go of outside the trace's lock, so that its deinit may report")
    func replacedHandlerReleasedOutsideLock() async {
        let model = ViewModel(initialState: Feed())
        // The first handler holds the last reference to an object whose deinit writes to the model, which reports.
        Trace.install { [keeper = DeinitAction { model.write { $0.count = 1 } }] _ in _ = keeper }
        let trace = Locked<Collector?>(nil)
        let installed = onAnotherThread { trace.withLock { $0 = Collector(model) } }

        // A deadlocked install keeps the trace's lock: uninstalling would hang the run instead of failing.
        guard await signalled(installed) else {
            Issue.record("deadlock: the replaced handler's deinit reported under the trace's lock")
            return
        }
        Trace.uninstall()
        #expect(model.state.count == 1)
        #expect(trace.withLock { $0?.kinds } == [.committed])
    }

    @Test("nothing is reported once the trace is uninstalled")
    func off() {
        let model = ViewModel(initialState: Feed())
        let trace = Collector(model)
        Trace.uninstall()

        model.write { $0.count = 1 }

        #expect(!Trace.isEnabled)
        #expect(trace.kinds.isEmpty)
    }
}

@MainActor
private struct Tally: ViewState {
    var count: Int
}

/// Renders the count of a feed, through a projection.
private final class CountView: StatefulView, @unchecked Sendable {
    private let recorded = Locked<[Int]>([])
    var rendered: [Int] { recorded.withLock { $0 } }
    func render(state: Tally) { recorded.withLock { $0.append(state.count) } }
}

private final class MainActorFeedView: MainActorStatefulView {
    func render(state: Feed) {}
}

/// Runs `action` when it is deallocated.
private final class DeinitAction: Sendable {
    let action: @Sendable () -> Void
    init(_ action: @escaping @Sendable () -> Void) { self.action = action }
    deinit { action() }
}
