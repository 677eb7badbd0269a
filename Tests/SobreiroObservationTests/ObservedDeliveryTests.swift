import Sobreiro
import SobreiroObservation
import TestSupport
import Testing

private struct Abort: Error {}

@Suite("Observed delivery")
@MainActor
struct ObservedDeliveryTests {
    @Test("O1: the object has the current state as soon as it exists")
    func startsOnCurrentState() {
        let model = ScreenModel()
        model.write { $0.title = "Forest" }
        let screen = model.observed()
        #expect(screen.title == "Forest")
        #expect(model.subscriberCount == 1)
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

    @Test("O1: a write on the main actor reaches the object before it returns")
    func mainActorWriteIsSynchronous() {
        let model = ScreenModel()
        let screen = model.observed()
        model.search(for: "oak")
        #expect(screen.query == "oak")
    }

    @Test("O1: a burst of background writes reaches the object in one main-actor turn, invalidating once")
    func backgroundBurstInvalidatesOnce() async {
        let model = ScreenModel()
        let screen = model.observed()
        let invalidations = Invalidations()
        invalidations.follow(screen) { $0.count }

        // Every write lands while the main actor is held here, so they wait for one hop.
        #expect(runElsewhereHoldingMainQueue { for _ in 0..<1_000 { model.write { $0.count += 1 } } })
        #expect(screen.count == 0, "the object changes only on the main actor")
        #expect(invalidations.count == 0)

        await drainMainQueue()
        #expect(screen.count == 1_000)
        #expect(invalidations.count == 1)

        #expect(runElsewhereHoldingMainQueue { for _ in 0..<1_000 { model.write { $0.count += 1 } } })
        await drainMainQueue()
        await drainMainQueue()
        #expect(screen.count == 2_000)
        #expect(invalidations.count == 2, "one turn per burst, nothing left over after it")
    }

    @Test("O1: writes racing the main actor end on the last state, in order, coalesced")
    func racingWritesEndOnLatest() async {
        let model = ScreenModel()
        let screen = model.observed()
        let invalidations = Invalidations()
        invalidations.follow(screen) { $0.count }

        let writes = 2_000
        var seen: [Int] = []
        let done = onAnotherThread { for _ in 0..<writes { model.write { $0.count += 1 } } }
        for _ in 0..<100_000 where screen.count != writes {
            await drainMainQueue()
            seen.append(screen.count)
        }
        await expectSignalled(done)
        await drainMainQueue()

        #expect(screen.count == writes)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 }, "never an older state after a newer one")
        #expect(invalidations.count <= writes, "never more than one announcement per committed state")
    }

    @Test("O1: a write made while the object announces a change reaches it right after, never inside")
    func writeFromObserverIsDeliveredAfter() {
        let model = ScreenModel()
        let screen = model.observed()
        let invalidations = Invalidations()
        var depth = 0
        var deepest = 0
        invalidations.follow(screen) {
            $0.count
        } onChange: {
            depth += 1
            deepest = max(deepest, depth)
            if invalidations.count == 1 { model.write { $0.count = 2 } }
            depth -= 1
        }

        model.write { $0.count = 1 }
        #expect(screen.count == 2, "the write made while announcing arrived before the first write returned")
        #expect(invalidations.count == 2)
        #expect(deepest == 1, "the second change was announced after the first, not inside it")
    }
}
