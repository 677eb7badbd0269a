import Dispatch
import Sobreiro
import SobreiroObservation
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
        _ = released.wait(timeout: .now() + 20)
    }

    func waitUntilBlocked() -> Bool { entered.wait(timeout: .now() + 20) == .success }
    func release() { released.signal() }
}

private struct Abort: Error {}

@Suite("Adversary: observed state")
@MainActor
struct AdversaryObservedTests {
    /// `StateBinding` and `observed()` say that a write made on the main actor reaches the object before the write
    /// returns ("so a text field never shows a stale value"). While another thread is the model's deliverer (here a
    /// background write whose delivery is held up by a slow view), the main-actor write only asks that deliverer
    /// for another round, and returns with the object still on the old value.
    @Test("O3: a binding written on the main actor while another thread delivers reads back the value written")
    func bindingWriteWhileAnotherThreadDelivers() async {
        let model = ScreenModel()
        let screen = model.observed()
        let query = screen.binding(\.query) { model.search(for: $0) }
        let slow = BlockingScreenView { $0.count == 1 }
        model.subscribe(view: slow)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        #expect(slow.waitUntilBlocked())

        // The control writes, then reads the value back to display it, as SwiftUI's TextField does.
        query.value = "ab"
        #expect(model.state.query == "ab")
        withKnownIssue("a main-actor write only asks the running deliverer for a round, and returns before it ends") {
            #expect(query.value == "ab", "the control reads back a stale value right after its own write")
        }

        slow.release()
        expectSignalled(writer)
        await drainMainQueue()
        await drainMainQueue()
        #expect(screen.query == "ab", "the object did not end on the latest state")
    }

    /// An object made inside a transaction of its model starts from `state`, which there is the draft being built:
    /// it shows (and lets readers depend on) a state the model never commits when the transaction rolls back.
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
        withKnownIssue("observed() starts from `state`, which inside a transaction is the draft") {
            #expect(shownInside == "", "the object showed the uncommitted draft \(shownInside ?? "nil")")
        }
        #expect(made?.query == "", "the object kept the rolled-back draft")
    }
}
