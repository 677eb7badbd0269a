import Dispatch
import Sobreiro
import SobreiroObservation
import SobreiroPrimitives
import TestSupport
import Testing

/// A view that blocks in its render of the first state matching `isSlow`, on the delivering thread, until the
/// test releases it: meanwhile that thread stays the model's deliverer.
final class BlockingScreenView: StatefulView, @unchecked Sendable {
    private let isSlow: @Sendable (ScreenState) -> Bool
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let hasBlocked = Locked(false)

    init(blockingOn isSlow: @escaping @Sendable (ScreenState) -> Bool) {
        self.isSlow = isSlow
    }

    func render(state: ScreenState) {
        guard isSlow(state),
            !hasBlocked.withLock({ blocked in
                defer { blocked = true }; return blocked
            })
        else { return }
        entered.signal()
        _ = released.wait(timeout: .now() + patience)
    }

    func waitUntilBlocked() async -> Bool { await signalled(entered) }
    func release() { released.signal() }
}

private struct Abort: Error {}

@Suite("An observed object shows committed states only, and a binding's write at once")
@MainActor
struct ObservedCatchUpTests {
    /// While another thread is the model's deliverer (here a background write whose delivery a slow view holds
    /// up), a main-actor write only asks that deliverer for another round; the binding then catches the object up
    /// with the committed state, so the control never reads back the value it replaced.
    @Test("O3: a binding written on the main actor while another thread delivers reads back the value written")
    func bindingWriteWhileAnotherThreadDelivers() async {
        let model = ScreenModel()
        let screen = model.observed()
        let query = screen.binding(\.query) { model.search(for: $0) }
        let slow = BlockingScreenView { $0.count == 1 }
        model.subscribe(view: slow)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        #expect(await slow.waitUntilBlocked())

        // The control writes, then reads the value back to display it, as SwiftUI's TextField does.
        query.value = "ab"
        #expect(model.state.query == "ab")
        #expect(query.value == "ab", "the control reads back a stale value right after its own write")
        let invalidations = Invalidations()
        invalidations.track { screen.query }
        // The state the held-up deliverer handed over before this write reaches the main actor now: it is older.
        await drainMainQueue()
        #expect(query.value == "ab", "an older state took the object back")

        slow.release()
        await expectSignalled(writer)
        await drainMainQueue()
        await drainMainQueue()
        #expect(screen.query == "ab", "the object did not end on the latest state")
        #expect(invalidations.count == 0, "the held-up older state took the object back before the latest one")
    }

    /// An object made inside a transaction of its model starts from the committed state, not from the draft being
    /// built, which the model never commits when the transaction rolls back.
    @Test("O1: an object made inside a transaction that rolls back never shows the uncommitted draft")
    func objectMadeInsideARolledBackTransaction() {
        let model = ScreenModel()
        var shownInside: String?
        var made: ObservedState<ScreenState>?
        do {
            try model.write { () throws -> Void in
                model.state.query = "draft"
                let screen = model.observed()
                made = screen
                shownInside = screen.query
                throw Abort()
            }
        } catch {}
        #expect(model.state.query == "")
        #expect(shownInside == "", "the object showed the uncommitted draft \(shownInside ?? "nil")")
        #expect(made?.query == "", "the object kept the rolled-back draft")
    }
}
