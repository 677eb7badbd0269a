import Dispatch
import Foundation
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

private struct Note: ViewState, Identifiable, Codable {
    let id: Int
    var title = ""
    var words = 0
}

private struct Notebook: ViewState {
    var notes: [Note] = []
    var draft: Note?
    var pinned = Note(id: 0)
    var saves = 0
}

private final class NotebookModel: ViewModel<Notebook>, @unchecked Sendable {
    init(_ notebook: Notebook = Notebook()) {
        super.init(initialState: notebook)
    }
}

/// A child feature whose state is one note of the notebook.
private final class NoteModel: ViewModel<Note>, @unchecked Sendable {
    func retitle(_ title: String) { write { $0.title = title } }
}

private struct Failure: Error {}

@Suite("W1: part models read, follow and write a part of a parent's state")
struct PartModelTests {
    @Test("W1: a part model's write commits in the parent, in one transaction that both sides' followers see")
    func writeGoesThroughTheParent() {
        let notebook = NotebookModel()
        let pinned = NoteModel(\.pinned, of: notebook)
        let parentView = ProbeView<Notebook>()
        let partView = ProbeView<Note>()
        notebook.subscribe(view: parentView)
        pinned.subscribe(view: partView)

        pinned.retitle("Groceries")
        #expect(notebook.state.pinned.title == "Groceries")
        #expect(pinned.state.title == "Groceries")
        #expect(parentView.history.map(\.pinned.title) == ["", "Groceries"])
        #expect(partView.history.map(\.title) == ["", "Groceries"])
    }

    @Test("W1: a parent's write that changes the part reaches the part's followers; one that does not, reaches none")
    func parentWritesReachThePart() {
        let notebook = NotebookModel()
        let pinned = NoteModel(\.pinned, of: notebook)
        let partView = ProbeView<Note>()
        pinned.subscribe(view: partView)

        notebook.write { $0.pinned.words = 3 }
        notebook.write { $0.saves += 1 }
        #expect(pinned.state == Note(id: 0, words: 3))
        #expect(partView.history == [Note(id: 0), Note(id: 0, words: 3)])
    }

    @Test("W1: inside a transaction of the parent, the part model reads the part being built, and its writes join")
    func nestedTransactionsJoin() {
        let notebook = NotebookModel()
        let pinned = NoteModel(\.pinned, of: notebook)
        let parentView = ProbeView<Notebook>()
        notebook.subscribe(view: parentView)
        notebook.write {
            $0.pinned.title = "a"
            #expect(pinned.state.title == "a")
            pinned.write { $0.title += "b" }
            #expect($0.pinned.title == "ab")
            $0.saves += 1
        }
        pinned.write { $0.words = 2 }
        #expect(parentView.history.map(\.saves) == [0, 1, 1], "one commit per outermost transaction")
        #expect(notebook.state.pinned == Note(id: 0, title: "ab", words: 2))
        #expect(pinned.state == notebook.state.pinned)
    }

    @Test("W1: a part model's write that throws, or a parent's that throws after it, leaves both as they were")
    func rollback() {
        let notebook = NotebookModel()
        let pinned = NoteModel(\.pinned, of: notebook)
        let partView = ProbeView<Note>()
        pinned.subscribe(view: partView)
        #expect(throws: Failure.self) {
            try pinned.write { (draft: borrowing Draft<Note>) throws(Failure) in
                draft.title = "lost"
                throw Failure()
            }
        }
        #expect(throws: Failure.self) {
            try notebook.write { () throws(Failure) in
                pinned.retitle("lost too")
                throw Failure()
            }
        }
        #expect(notebook.state == Notebook())
        #expect(pinned.state == Note(id: 0))
        let late = ProbeView<Note>()
        pinned.subscribe(view: late)
        #expect(late.history == [Note(id: 0)], "a new subscriber renders the committed part, not a rolled-back draft")
        #expect(partView.history == [Note(id: 0)])
    }

    @Test(
        "a part in an optional or found by identity: once the parent drops it, the part model keeps its state and its writes commit nothing"
    )
    func partsThatGo() {
        let notebook = NotebookModel(Notebook(notes: [Note(id: 1), Note(id: 2)], draft: Note(id: 9)))
        let draft = NoteModel(\.draft, of: notebook)
        let second = NoteModel(\.notes[id: 2], of: notebook)
        second.retitle("two")
        draft.retitle("nine")
        #expect(notebook.state.notes[1].title == "two")
        #expect(notebook.state.draft?.title == "nine")

        notebook.write {
            $0.draft = nil
            $0.notes.removeAll { $0.id == 2 }
        }
        draft.retitle("after")
        second.retitle("after")
        #expect(draft.state.title == "nine")
        #expect(second.state.title == "two")
        #expect(notebook.state.draft == nil)
        #expect(notebook.state.notes == [Note(id: 1)])
    }

    @Test("W1: a part of a part commits in the same step as its parent's")
    func partOfAPart() {
        let notebook = NotebookModel()
        let pinned = NoteModel(\.pinned, of: notebook)
        let title = NoteTitleModel(\.titleValue, of: pinned)
        let titleView = ProbeView<NoteTitle>()
        title.subscribe(view: titleView)
        title.write { $0.value += "x" }
        notebook.write { $0.pinned.title += "y" }
        #expect(notebook.state.pinned.title == "xy")
        #expect(pinned.state.title == "xy")
        #expect(titleView.history.map(\.value) == ["", "x", "xy"])
    }

    @Test("W1: the parent holds its part models weakly: one released is forgotten, and the parent goes on")
    func partsAreHeldWeakly() {
        let notebook = NotebookModel()
        weak var released: NoteModel?
        do {
            let pinned = NoteModel(\.pinned, of: notebook)
            released = pinned
            pinned.retitle("gone")
        }
        #expect(released == nil)
        notebook.write { $0.pinned.words = 1 }
        #expect(notebook.state.pinned == Note(id: 0, title: "gone", words: 1))
    }

    @Test(
        "writers of the part and of the parent on many threads: both sides' followers see the part's changes in one order, and end on the same state"
    )
    func oneHistoryUnderConcurrency() async {
        let notebook = NotebookModel()
        let pinned = NoteModel(\.pinned, of: notebook)
        let parentView = ProbeView<Notebook>()
        let partView = ProbeView<Note>()
        notebook.subscribe(view: parentView)
        pinned.subscribe(view: partView)
        await expectCompletes {
            race(times: 4) { index in
                for _ in 0..<2_000 {
                    if index.isMultiple(of: 2) {
                        pinned.write { $0.words += 1 }
                    } else {
                        notebook.write {
                            $0.pinned.words += 1
                            $0.saves += 1
                        }
                    }
                }
            }
        }
        #expect(notebook.state.pinned.words == 8_000)
        #expect(pinned.state == notebook.state.pinned)
        let partWords = partView.history.map(\.words)
        let parentWords = parentView.history.map(\.pinned.words)
        #expect(isStrictlyIncreasing(partWords), "the part's followers never go back")
        #expect(isStrictlyIncreasing(parentWords.removingRepeats()), "the parent's followers never go back")
        #expect(partWords.last == 8_000 && parentWords.last == 8_000)
        #expect(partView.overlappingRenders == 0)
    }
}

/// A part model of a part model.
private final class NoteTitleModel: ViewModel<NoteTitle>, @unchecked Sendable {}

private struct NoteTitle: ViewState, ExpressibleByStringLiteral {
    var value: String
    init(stringLiteral value: String) { self.value = value }
}

extension Note {
    fileprivate var titleValue: NoteTitle {
        get { NoteTitle(stringLiteral: title) }
        set { title = newValue.value }
    }
}

extension Array where Element: Equatable {
    fileprivate func removingRepeats() -> [Element] {
        var result: [Element] = []
        for element in self where result.last != element { result.append(element) }
        return result
    }
}

/// The Composition article's recipe: a shared value saved to a file by iterating its states.
@Suite("W1: persisting a shared value")
struct PersistenceRecipeTests {
    private struct NotesStore: Sendable {
        let url: URL

        func load() throws -> [Note] {
            try JSONDecoder().decode([Note].self, from: Data(contentsOf: url))
        }

        func save(_ notes: [Note]) throws {
            try JSONEncoder().encode(notes).write(to: url, options: .atomic)
        }
    }

    @Test("W1: the saving loop ends on the last state written, after part models wrote into it, and loads back")
    func savesTheLastState() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = NotesStore(url: url)
        let notebook = NotebookModel(Notebook(notes: [Note(id: 1), Note(id: 2)]))
        let saving = Task {
            for await notes in notebook.map(\.notes).states {
                try? store.save(notes)
                if notes.allSatisfy({ $0.words == 50 }) { return }
            }
        }
        let first = NoteModel(\.notes[id: 1], of: notebook)
        let second = NoteModel(\.notes[id: 2], of: notebook)
        for _ in 0..<50 {
            first.write { $0.words += 1 }
            second.write { $0.words += 1 }
        }
        await saving.value
        #expect(try store.load() == notebook.state.notes)
        #expect(try store.load().map(\.words) == [50, 50])
    }
}
