import Dispatch
import Sobreiro
import SobreiroTesting
import Testing

private struct Count: ViewState {
    var value = 0
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
}
