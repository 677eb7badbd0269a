import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

private enum BaseURLKey: DependencyKey {
    static let defaultValue = "https://live.example"
}

private enum TokenKey: DependencyKey {
    typealias Value = String
}

private struct Endpoint: ViewState {
    var url = ""
}

/// Builds its endpoint from the tree's values, with nothing passed to its initializer.
private final class EndpointModel: ViewModel<Endpoint>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: Endpoint())
    }

    func didBecomeActive(_ activation: Activation<EndpointModel>) {
        let url = dependency(BaseURLKey.self) + "?token=" + dependency(TokenKey.self)
        write { $0.url = url }
    }
}

@Suite @MainActor struct TestHostDependencyTests {
    @Test func theHostOverridesValuesForItsModel() {
        let endpoint = TestHost(
            EndpointModel(),
            dependencies: DependencyValues().with(BaseURLKey.self, "https://stub.example").with(TokenKey.self, "t")
        )
        endpoint.expect(Endpoint(url: "https://stub.example?token=t"))
    }

    @Test("W4: a key with no test value that the host does not provide fails the test, then reads its default")
    func unprovidedKeyFailsTheTest() {
        var values = DependencyValues()
        values[TokenKey.self] = "t"
        var endpoint: TestHost<EndpointModel, Endpoint>?
        withKnownIssue {
            endpoint = TestHost(EndpointModel(), dependencies: values)
        } matching: { issue in
            let message = text(of: issue)
            return message.contains(
                "No value for BaseURLKey at RootScope → Behavior(EndpointModel) in this test")
                && message.contains("TestHost(model, dependencies: DependencyValues().with(BaseURLKey.self, value))")
                && message.contains("static var testValue")
        }
        endpoint?.expect(Endpoint(url: "https://live.example?token=t"))
    }
}

private struct Ticks: ViewState {
    var count = 0
}

/// Polls every second on the clock the tree gives it.
private final class TickerModel: ViewModel<Ticks>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: Ticks())
    }

    func didBecomeActive(_ activation: Activation<TickerModel>) {
        activation.effect(.every(.seconds(1))) { state in
            state.count + 1
        } reduce: { state, result in
            state.count = result.get()
        }
    }
}

@Suite @MainActor struct ClockThroughTheTreeTests {
    @Test func aTestClockGivenToTheHostDrivesTheModelsPolling() async {
        let clock = TestClock()
        let ticker = TestHost(TickerModel(), dependencies: DependencyValues().with(ClockKey.self, clock))
        await ticker.settleEffects()
        await clock.advance(by: .seconds(2))
        await ticker.settleEffects()
        #expect(ticker.model.state.count == 3)
        ticker.detach()
    }
}
