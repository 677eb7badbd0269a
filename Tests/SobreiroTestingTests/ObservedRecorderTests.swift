import Dispatch
import Sobreiro
import SobreiroObservation
import SobreiroTesting
import Testing

private struct Shown: ViewState {
    var query = ""
    var count = 0
}

@Suite("A recorder of an observed object")
@MainActor
struct ObservedRecorderTests {
    @Test("records the object's current state, then each state it takes after writes from another thread")
    func recordsWhatTheObjectShows() async {
        let model = ViewModel(initialState: Shown())
        let observed = model.observed()
        let shown = StateRecorder(observing: observed)
        #expect(shown.history == [Shown()])

        let writer = Task.detached {
            for count in 1...100 { model.write { $0.count = count } }
        }
        let last = await shown.first(timeout: patience) { $0.count == 100 }
        #expect(last == Shown(count: 100))
        #expect(observed.count == 100, "the recorder saw what the object holds")
        await writer.value
    }

    @Test("a state the object takes on the main actor is recorded on the next turn of the main queue")
    func recordsMainActorWrites() async {
        let model = ViewModel(initialState: Shown())
        let shown = StateRecorder(observing: model.observed())
        shown.expect(Shown())

        model.write { $0.query = "oak" }
        await shown.expectNext(Shown(query: "oak"))
        model.write { $0.query = "oak" }
        model.write { $0.count = 1 }
        await shown.expectNext(Shown(query: "oak", count: 1))
    }
}
