import Dispatch
import Sobreiro
import SobreiroTesting
import Testing

private struct Count: ViewState {
    var value = 0
    var title = ""
}

@Suite("StateRecorder")
struct StateRecorderTests {
    @Test("records the first render, then every distinct change, in order")
    func recordsHistory() {
        let model = ViewModel(initialState: Count())
        let recorder = StateRecorder(subscribedTo: model)
        #expect(recorder.lastState == Count())
        model.write { $0.value = 1 }
        model.write { $0.value = 1 }
        model.write { $0.value = 2 }
        #expect(recorder.history.map(\.value) == [0, 1, 2])
        #expect(recorder.lastState == Count(value: 2))
    }

    @Test("starts empty and is held weakly by the model")
    func unsubscribedRecorderIsEmpty() {
        let model = ViewModel(initialState: Count())
        weak var weakRecorder: StateRecorder<Count>?
        do {
            let recorder = StateRecorder<Count>()
            #expect(recorder.history.isEmpty)
            #expect(recorder.lastState == nil)
            model.subscribe(view: recorder)
            weakRecorder = recorder
        }
        #expect(weakRecorder == nil)
        #expect(model.subscriberCount == 0)
    }

    @Test("records safely from many threads")
    func recordsFromManyThreads() {
        let model = ViewModel(initialState: Count())
        let recorder = StateRecorder(subscribedTo: model)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<500 { model.write { $0.value += 1 } }
        }
        #expect(recorder.lastState == Count(value: 2_000))
    }

    @Test("expect passes when exactly the expected states arrived since the last look")
    func expectStepByStep() {
        let model = ViewModel(initialState: Count())
        let states = StateRecorder(subscribedTo: model)
        states.expect(Count())
        model.write { $0.value = 1 }
        model.write { $0.value = 2 }
        states.expect(Count(value: 1), Count(value: 2))
        states.expect()
    }

    @Test("a different state fails at the caller's line with the path to the first differing field")
    func mismatchShowsThePath() {
        let model = ViewModel(initialState: Count())
        let states = StateRecorder(subscribedTo: model)
        states.expect(Count())
        model.write { $0.title = "cork" }
        let line = #line + 2
        withKnownIssue {
            states.expect(Count(title: "oak"))
        } matching: { issue in
            text(of: issue).contains(#"state.title: "oak" → "cork""#) && issue.sourceLocation?.line == line
        }
    }

    @Test("a missing state fails, naming it")
    func missingState() {
        let model = ViewModel(initialState: Count())
        let states = StateRecorder(subscribedTo: model)
        withKnownIssue {
            states.expect(Count(), Count(value: 1))
        } matching: { issue in
            text(of: issue).contains("expected 2 state(s), but 1 arrived")
                && text(of: issue).contains("state #2 missing: Count(value: 1")
        }
    }

    @Test("an extra state fails, naming it")
    func extraState() {
        let model = ViewModel(initialState: Count())
        let states = StateRecorder(subscribedTo: model)
        model.write { $0.value = 1 }
        withKnownIssue {
            states.expect(Count())
        } matching: { issue in
            text(of: issue).contains("state #2 unexpected: Count(value: 1")
        }
    }

    @Test("once asserted step by step, a state never looked at fails when the recorder is released")
    func exhaustiveAtTheEnd() {
        let model = ViewModel(initialState: Count())
        withKnownIssue {
            let states = StateRecorder(subscribedTo: model)
            states.expect(Count())
            model.write { $0.value = 7 }
        } matching: { issue in
            text(of: issue).contains("1 state(s) delivered but never asserted")
                && text(of: issue).contains("state.value: 0 → 7")
        }
    }

    @Test(
        "states never asserted are shown as what changed: the first against the last asserted, each next against the one before"
    )
    func unassertedAsDifferences() {
        let model = ViewModel(initialState: Count())
        withKnownIssue {
            let states = StateRecorder(subscribedTo: model)
            states.expect(Count())
            model.write { $0.value = 7 }
            model.write { $0.value = 8 }
        } matching: { issue in
            text(of: issue) == """
                2 state(s) delivered but never asserted:
                  state #1, against the last state asserted (before → after):
                    state.value: 0 → 7
                  state #2, against the state before it (before → after):
                    state.value: 7 → 8
                """
        }
    }

    @Test("next awaits a state written by a task, and first(where:) skips to a matching one")
    func awaitsStatesFromTasks() async {
        let model = ViewModel(initialState: Count())
        let states = StateRecorder(subscribedTo: model)
        states.expect(Count())
        Task.detached { for value in 1...5 { model.write { $0.value = value } } }

        let first = await states.next(timeout: patience)
        let fifth = await states.first(timeout: patience) { $0.value == 5 }

        #expect(first?.value == 1)
        #expect(fifth?.value == 5)
        states.expect()
    }

    @Test("a main-actor recorder sees the states a main-actor view renders, ending on the latest")
    @MainActor
    func mainActorRecorder() async {
        let model = ViewModel(initialState: Count())
        let rendered = StateRecorder(subscribedOnMainActorTo: model)
        await rendered.expectNext(Count(), timeout: patience)

        await Task.detached { for value in 1...100 { model.write { $0.value = value } } }.value

        let last = await rendered.first(timeout: patience) { $0.value == 100 }
        #expect(last == Count(value: 100))
        #expect(rendered.history.map(\.value) == rendered.history.map(\.value).sorted(), "in order")
    }

    @Test("expectNext compares the awaited state")
    func expectNext() async {
        let model = ViewModel(initialState: Count())
        let states = StateRecorder(subscribedTo: model)
        states.expect(Count())
        Task.detached { model.write { $0.value = 3 } }
        await states.expectNext(Count(value: 3), timeout: patience)
    }

    @Test("a state that never comes fails after the timeout instead of hanging")
    func timeoutFails() async {
        let model = ViewModel(initialState: Count())
        let states = StateRecorder(subscribedTo: model)
        states.expect(Count())
        await withKnownIssue {
            let state = await states.first(timeout: .milliseconds(50)) { $0.value == 1 }
            #expect(state == nil)
        } matching: { issue in
            text(of: issue).contains("no matching state was delivered within")
        }
    }
}
