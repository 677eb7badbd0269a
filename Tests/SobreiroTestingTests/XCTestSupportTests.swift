import ScopeKit
import Sobreiro
import SobreiroTesting
import XCTest

private struct Count: ViewState {
    var value = 0
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
        let model = PollModel(clock: clock)
        let hosted = Hosted(model)

        model.write { $0.query = "oak" }
        await settleEffects(of: model, timeout: patience)
        await clock.advance(by: .milliseconds(300))

        XCTAssertEqual(model.state.results, ["oak", "oaks"])
        XCTAssertTrue(captured.isEmpty, "\(captured.map(\.description))")
        hosted.screen.detach()
    }
}
