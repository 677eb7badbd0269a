import Dispatch
import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import TestSupport
import Testing

/// A view that runs `onRender` inside each render.
private final class HookView: StatefulView, @unchecked Sendable {
    let onRender: @Sendable (Feed) -> Void
    private let rendered = Locked<[Int]>([])
    var counts: [Int] { rendered.withLock { $0 } }

    init(onRender: @escaping @Sendable (Feed) -> Void = { _ in }) {
        self.onRender = onRender
    }

    func render(state: Feed) {
        rendered.withLock { $0.append(state.count) }
        onRender(state)
    }
}

/// Holds a view until a render lets it go.
private final class Holder: @unchecked Sendable {
    let view = Locked<HookView?>(nil)
}

@Suite("Faults")
@MainActor
struct FaultTests {
    @Test("a subscriber deallocated in the middle of a delivery is never called, and the rest still are")
    func subscriberReleasedMidDelivery() {
        let model = ViewModel(initialState: Feed())
        let holder = Holder()
        weak var weakVictim: HookView?
        let killer = HookView { state in
            if state.count == 1 { holder.view.withLock { $0 = nil } }
        }
        let survivor = HookView()
        do {
            let victim = HookView()
            weakVictim = victim
            holder.view.withLock { $0 = victim }
            model.subscribe(view: killer)
            model.subscribe(view: victim)
            model.subscribe(view: survivor)
        }

        model.write { $0.count = 1 }
        model.write { $0.count = 2 }

        #expect(weakVictim == nil)
        #expect(survivor.counts.last == 2)
        #expect(killer.counts.last == 2)
        #expect(model.subscriberCount == 2)
    }

    @Test("a behavior that evicts itself from its own hook, held only by its host, finishes its hooks and is freed")
    func behaviorReleasedInsideItsHook() {
        let root = RootScope()
        let screen = Scope()
        let journal = Journal()
        weak var weakBehavior: SelfEvictingBehavior?
        do {
            let behavior = SelfEvictingBehavior(journal: journal)
            weakBehavior = behavior
            screen.host(behavior)
        }
        root.host(screen)

        screen.detach()  // the behavior's willDeactivate asks its host, its only owner, to let it go

        #expect(weakBehavior == nil)
        #expect(screen.children.isEmpty)
        #expect(journal.entries == ["willDeactivate", "didDeactivate", "willDetach", "didDetach"])
    }

    @Test("a model released while one of its effects is in flight is freed, and the late result goes nowhere")
    func modelReleasedWithEffectInFlight() async {
        let gate = Gate<String>()
        let live = LiveCount()
        let root = RootScope()
        weak var weakModel: FeedModel?
        do {
            let behavior = Behavior()
            let model = FeedModel(Feed(query: "a")) { _, activation in
                activation.effect(.onChange(of: \.query)) { _ in
                    live.enter()
                    defer { live.leave() }
                    return await gate.wait(honoursCancellation: false)!
                } reduce: { state, result in
                    state.results = [result.get()]
                }
            }
            weakModel = model
            behavior.bind(model)
            root.host(behavior)
            await withDeadline { await live.until(1) }
            behavior.detach()
        }

        gate.open("late")
        await withDeadline { await live.until(0) }

        #expect(weakModel == nil)
    }

    @Test("a slow subscriber of one model does not block the writers of another")
    func slowSubscriberBlocksOnlyItsOwnModel() async {
        let slowModel = ViewModel(initialState: Feed())
        let fastModel = ViewModel(initialState: Feed())
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let slow = HookView { state in
            guard state.count == 1 else { return }
            entered.signal()
            _ = release.wait(timeout: .now() + patience)
        }
        slowModel.subscribe(view: slow)
        let fastView = HookView()
        fastModel.subscribe(view: fastView)

        // A thread of its own blocks in the slow render, never one of the pool or the main thread.
        let writer = onAnotherThread { slowModel.write { $0.count = 1 } }
        await expectSignalled(entered)
        await withDeadline {
            for count in 1...10_000 { fastModel.write { $0.count = count } }
        }
        release.signal()
        await expectSignalled(writer)

        #expect(fastView.counts.last == 10_000)
        _ = await firstState(of: slowModel) { $0.count == 1 }
        #expect(slow.counts.last == 1)
    }
}

/// Records its hooks; asked to, it evicts itself from inside its own deactivation.
private final class SelfEvictingBehavior: Behavior {
    let journal: Journal

    init(journal: Journal) {
        self.journal = journal
    }

    override func willDeactivate() {
        journal.record("willDeactivate")
        host?.evict(self)
    }

    override func didDeactivate() { journal.record("didDeactivate") }
    override func willDetach() { journal.record("willDetach") }
    override func didDetach() { journal.record("didDetach") }
}
