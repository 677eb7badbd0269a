import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import XCTest

private struct Count: ViewState {
    var value = 0
}

/// Counts to one a second after it becomes active, on its clock.
private final class TickModel: ViewModel<Count>, ScopedViewModel, @unchecked Sendable {
    let clock: TestClock

    init(clock: TestClock) {
        self.clock = clock
        super.init(initialState: Count())
    }

    func didBecomeActive(_ activation: Activation<TickModel>) {
        activation.effect(when: { $0.value == 0 }) { [clock] _ in
            try await clock.sleep(for: .seconds(1))
            return 1
        } reduce: { state, result in
            state.value = (try? result.get()) ?? -1
        }
    }
}

/// The helpers report through XCTest when XCTest runs the test, at the caller's file and line.
final class XCTestSupportTests: XCTestCase {
    private var captured: [(description: String, file: String, line: Int)] = []

    /// Captures failures instead of failing, so that a test can check what a helper reported.
    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        captured.append((description, filePath, lineNumber))
    }

    func testPassingAssertionsReportNothing() {
        let model = ViewModel(initialState: Count())
        let states = StateRecorder(subscribedTo: model)
        states.expect(Count())
        model.write { $0.value = 1 }
        states.expect(Count(value: 1))
        XCTAssertTrue(captured.isEmpty)
    }

    func testAMismatchIsReportedAtTheCallersLine() {
        let model = ViewModel(initialState: Count())
        let states = StateRecorder(subscribedTo: model)
        states.expect(Count(value: 2)); let line = #line

        XCTAssertEqual(captured.count, 1)
        XCTAssertTrue(captured.first?.description.contains("state.value: 2 → 0") ?? false)
        XCTAssertEqual(captured.first?.line, line)
        XCTAssertTrue(captured.first?.file.hasSuffix("XCTestSupportTests.swift") ?? false)
    }

    func testAwaitingAStateFromATask() async {
        let model = ViewModel(initialState: Count())
        let states = StateRecorder(subscribedTo: model)
        states.expect(Count())
        Task.detached { model.write { $0.value = 5 } }
        await states.expectNext(Count(value: 5), timeout: patience)
        XCTAssertTrue(captured.isEmpty)
    }

    /// Settling lets the main queue run first, which an XCTest run on the main actor must allow.
    @MainActor
    func testSettlingAndAdvancingATestClock() async {
        let clock = TestClock()
        let model = TickModel(clock: clock)
        let screen = Behavior()
        screen.bind(model)
        let root = RootScope()
        root.host(screen)

        await settleEffects(of: model, timeout: patience)
        await clock.advance(by: .seconds(1))

        XCTAssertEqual(model.state.value, 1)
        XCTAssertTrue(captured.isEmpty, "\(captured.map(\.description))")
        screen.detach()
    }
}
