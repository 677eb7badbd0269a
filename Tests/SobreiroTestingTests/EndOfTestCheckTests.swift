import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

struct Loading: ViewState {
    var isLoading = false
    var items: [Int] = []
}

/// Loads while `isLoading` holds, from a sequence that never ends: its operation waits for something that is
/// neither a test clock nor a sequence it consumes, as one waiting for a real request would.
private final class HangingLoadModel: ViewModel<Loading>, ScopedViewModel, @unchecked Sendable {
    let (never, neverEnds) = AsyncStream.makeStream(of: Int.self)
    /// Signalled as the load starts to wait.
    let waits = AsyncSignal()

    init() {
        super.init(initialState: Loading(isLoading: true))
    }

    func didBecomeActive(_ activation: Activation<HangingLoadModel>) {
        activation.effect(.when(\.isLoading)) { [never, waits] _ in
            waits.signal()
            for await _ in never {}
            return [1]
        } reduce: { state, items in
            state.isLoading = false
            state.items = items.get()
        }
    }
}

/// Folds a stream of items into its state, with no clock anywhere.
private final class StreamModel: ViewModel<Loading>, ScopedViewModel, @unchecked Sendable {
    let (items, send) = AsyncStream.makeStream(of: Int.self)

    init() {
        super.init(initialState: Loading())
    }

    func didBecomeActive(_ activation: Activation<StreamModel>) {
        activation.effect(.elements(of: items)) { state, item in
            if case .success(let item) = item { state.items.append(item) }
        }
    }
}

@Suite("The end-of-test check of effects")
@MainActor
struct EndOfTestCheckTests {
    @Test("a host whose effect waits for something other than a clock reports it at once, and holds up no one")
    func hangingEffectReportedAtOnce() async {
        let line = #line + 3
        var took = Duration.zero
        await withKnownIssue {
            let host = TestHost(HangingLoadModel())
            await host.model.waits.wait()
            let started = ContinuousClock.now
            do { _ = consume host }
            took = ContinuousClock.now - started
        } matching: { issue in
            issue.sourceLocation?.line == line
                && text(of: issue).contains(
                    "1 effect operation(s) of HangingLoadModel still run at the end of the test")
                && text(of: issue).contains(
                    "running, or waiting for something other than a TestClock or a sequence it consumes")
                && !text(of: issue).contains("TestClock they sleep on")
        }
        // Far under any wait: the check answers at once, whatever the machine's load.
        #expect(took < .seconds(4), "the end of the test waited \(took) for an effect that never settles")
    }

    @Test("a host counts its effects' jobs with no clock, so an element that wakes an operation holds settling up")
    func hostCountsJobsWithoutClock() async {
        // In a process of its own, where no test has made a clock: counting is switched on by the host alone.
        await #expect(processExitsWith: .success) {
            await MainActor.run {
                guard !EffectActivity.isCountingJobs else { fatalError("a clock was made before the host") }
                let host = TestHost(StreamModel(), effects: .mayOutliveTest)
                guard EffectActivity.isCountingJobs else { fatalError("the host does not count its effects' jobs") }
                _ = host
            }
        }
    }

    @Test("a stream left open in a model with no clock is reported as waiting for its next element")
    func openStreamNamesItsWait() async {
        let line = #line + 2
        await withKnownIssue {
            let host = TestHost(StreamModel())
            host.model.send.yield(4)
            await host.settleEffects()
            host.expect(Loading(items: [4]))
        } matching: { issue in
            let text = text(of: issue)
            return issue.sourceLocation?.line == line
                && text.contains(
                    "1 effect operation(s) of StreamModel still run at the end of the test, waiting for the next "
                        + "element of a sequence it consumes:\n  effect(.elements) at SobreiroTestingTests/"
                        + "EndOfTestCheckTests.swift:")
                && text.contains("finish the sequence they consume")
                && !text.contains("TestClock")
        }
    }

    @Test("a stream that the test finishes ends the test cleanly")
    func finishedStream() async {
        let host = TestHost(StreamModel())
        host.model.send.yield(4)
        host.model.send.finish()
        await host.settleEffects()
        host.expect(Loading(items: [4]))
    }

    @Test("settling that the main queue holds up says so without blaming the test's own wait")
    func mainQueueMessage() {
        let message = unsettled(isWaitingForMainQueue: true, operations: [])
        #expect(message.contains("the main queue did not get to run the jobs queued on it"))
        #expect(!message.contains("keep the main thread free while waiting"))
    }
}
