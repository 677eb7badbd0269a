import Dispatch
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

private struct EdgeNote: ViewState, Identifiable {
    let id: Int
    var title = ""
    var words = 0
}

private struct EdgeBook: ViewState {
    var notes: [EdgeNote] = []
    var draft: EdgeNote?
    var pinned = EdgeNote(id: 0)
    var saves = 0
}

private final class EdgeBookModel: ViewModel<EdgeBook>, @unchecked Sendable {
    init(_ book: EdgeBook = EdgeBook()) { super.init(initialState: book) }
}

private final class EdgeNoteModel: ViewModel<EdgeNote>, @unchecked Sendable {
    func retitle(_ title: String) { write { $0.title = title } }
}

private struct EdgeTitle: ViewState { var value: String }
private final class EdgeTitleModel: ViewModel<EdgeTitle>, @unchecked Sendable {}
extension EdgeNote {
    fileprivate var titleValue: EdgeTitle {
        get { EdgeTitle(value: title) }
        set { title = newValue.value }
    }
}

private struct Boom: Error {}

/// Whether `model`'s lock is held by the calling thread, seen from another thread that takes it: the wait lasts the
/// suite's patience, far longer than a thread takes to start and lock on a busy machine, so only a lock held by the
/// caller (which waits here, and so never lets it go) makes it time out.
private func lockHeld<S>(_ model: ViewModel<S>) -> Bool {
    onAnotherThread { _ = model.subscriberCount }.wait(timeout: .now() + patience) != .success
}

/// A key path argument whose deinit records whether the parent's lock is held.
private final class PartKey: Hashable, Sendable {
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
    static func == (l: PartKey, r: PartKey) -> Bool { l === r }
    func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
}
extension EdgeBook {
    fileprivate subscript(key key: PartKey) -> EdgeNote {
        get { pinned }
        set { pinned = newValue }
    }
}

private final class Flag: Sendable {
    let value = Atomic<Int>(-1)
}

@MainActor
private final class MainNoteView: MainActorStatefulView {
    var rendered: [EdgeNote] = []
    func render(state: EdgeNote) { rendered.append(state) }
}

private final class GateNoteView: StatefulView, @unchecked Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let done = Atomic<Bool>(false)
    func render(state: EdgeNote) {
        guard state.words == 1, !done.exchange(true, ordering: .relaxed) else { return }
        entered.signal()
        _ = release.wait(timeout: .now() + patience)
    }
}

@Suite("W1: part models at their edges")
struct PartModelEdgeTests {
    @Test("W1: a write of the parent nested in a part model's write stops the program, naming the parent and the fix")
    func parentWriteNestedInPartWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let book = EdgeBookModel()
            let pinned = EdgeNoteModel(\.pinned, of: book)
            pinned.write {
                $0.title = "a"
                try? book.write { () throws(Boom) in
                    pinned.write { $0.words = 1 }
                    throw Boom()
                }
            }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("EdgeBookModel was written inside a write of one of its part models"))
        #expect(stderr.contains("write EdgeBookModel before or after the part model's write"))
    }

    @Test("W1: two part models of one part, one's write nested in the other's, stop the program, naming the parent")
    func siblingWriteNestedInPartWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let book = EdgeBookModel()
            let a = EdgeNoteModel(\.pinned, of: book)
            let b = EdgeNoteModel(\.pinned, of: book)
            a.write {
                $0.title = "a"
                b.write { $0.words = 1 }
            }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("EdgeBookModel was written inside a write of one of its part models"))
    }

    @Test("W1: nested writes of one part model, and of its own part models, roll back with it")
    func nestedPartWritesRollBack() {
        let book = EdgeBookModel()
        let pinned = EdgeNoteModel(\.pinned, of: book)
        let title = EdgeTitleModel(\.titleValue, of: pinned)
        pinned.write {
            $0.words = 1
            try? pinned.write { () throws(Boom) in
                title.write { $0.value = "lost" }
                throw Boom()
            }
            title.write { $0.value = "kept" }
        }
        #expect(book.state.pinned == EdgeNote(id: 0, title: "kept", words: 1))
        #expect(pinned.state == book.state.pinned)
        #expect(title.state.value == "kept")
    }

    @Test("W1: a part of a part reads the part being built inside a transaction of its grandparent")
    func grandchildReadsDraft() {
        let book = EdgeBookModel()
        let pinned = EdgeNoteModel(\.pinned, of: book)
        let title = EdgeTitleModel(\.titleValue, of: pinned)
        var seen = ""
        var seenByPinned = ""
        book.write { (d: borrowing Draft<EdgeBook>) in
            d.pinned.title = "a"
            seenByPinned = pinned.state.title
            seen = title.state.value
        }
        #expect(seenByPinned == "a")
        #expect(seen == "a", "grandchild read a stale committed part inside the grandparent's transaction")
        #expect(title.state.value == "a")
    }

    @Test("W1: a part model whose optional part went away stays gone when a new part appears there")
    func partReappears() {
        let book = EdgeBookModel(EdgeBook(draft: EdgeNote(id: 9, title: "sheet 1")))
        let old = EdgeNoteModel(\.draft, of: book)
        book.write { $0.draft = nil }
        #expect(old.state.id == 9)
        book.write { $0.draft = EdgeNote(id: 10, title: "sheet 2") }
        #expect(old.state.id == 9, "the old sheet's model now follows the new sheet")
        old.retitle("late write of sheet 1")
        #expect(book.state.draft?.title == "sheet 2", "a late write of the closed sheet landed in the new sheet")
    }

    @Test(
        "W1, R4: subscribing to a part model inside a transaction of its parent renders after the parent's lock, the state committed"
    )
    func subscribeInsideParentTransaction() {
        let book = EdgeBookModel()
        let pinned = EdgeNoteModel(\.pinned, of: book)
        let heldDuringRender = Flag()
        let readInRender = Locked<[String]>([])
        let view = ProbeView<EdgeNote> { rendered in
            heldDuringRender.value.store(lockHeld(book) ? 1 : 0, ordering: .relaxed)
            readInRender.withLock { $0.append("param=\(rendered.title) state=\(pinned.state.title)") }
        }
        do {
            try book.write { () throws(Boom) in
                book.state.pinned.title = "draft that rolls back"
                pinned.subscribe(view: view)
                throw Boom()
            }
        } catch {}
        #expect(heldDuringRender.value.load(ordering: .relaxed) == 0, "the render ran under the parent's lock")
        #expect(readInRender.withLock { $0 } == ["param= state="], "the render saw a draft that rolled back")
    }

    @Test("W1, R4: a key path argument of a released part model is let go of outside the parent's lock")
    func keyPathCaptureReleasedUnderLock() {
        let book = EdgeBookModel()
        let held = Flag()
        do {
            let key = PartKey { held.value.store(lockHeld(book) ? 1 : 0, ordering: .relaxed) }
            let part = EdgeNoteModel(\EdgeBook.[key: key], of: book)
            part.retitle("x")
        }
        #expect(held.value.load(ordering: .relaxed) == -1, "still alive: the parent's record holds it")
        book.write { $0.saves += 1 }  // commitParts forgets the dead record
        #expect(held.value.load(ordering: .relaxed) == 0, "the key's deinit ran under the parent's lock")
    }

    @Test(
        "W1, V4: main-actor writes of a part and of its parent reach the part's main-actor view before they return, while another thread delivers"
    )
    @MainActor
    func mainActorFollowerOfPart() async {
        let book = EdgeBookModel()
        let pinned = EdgeNoteModel(\.pinned, of: book)
        let gate = GateNoteView()
        pinned.subscribe(view: gate)
        let view = MainNoteView()
        pinned.subscribe(view: view)
        let writer = onAnotherThread { pinned.write { $0.words = 1 } }  // delivers, blocks in the gate
        #expect(await signalled(gate.entered))
        pinned.retitle("main")
        let afterPartWrite = view.rendered.last?.title
        book.write { $0.pinned.title = "main2" }
        let afterParentWrite = view.rendered.last?.title
        gate.release.signal()
        #expect(await signalled(writer))
        await drainMainQueue()
        #expect(afterPartWrite == "main", "a main-actor part write returned before reaching the main-actor view")
        #expect(afterParentWrite == "main2", "a main-actor parent write returned before reaching the part's view")
        #expect(view.rendered.last == pinned.state)
    }
}
