import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Testing

private protocol Greeter: Sendable {
    var greeting: String { get }
}

private struct FixedGreeter: Greeter {
    let greeting: String
}

private enum GreeterKey: DependencyKey {
    static let defaultValue: any Greeter = FixedGreeter(greeting: "live")
}

private enum RegionKey: DependencyKey {
    typealias Value = String
}

private struct Greeting: ViewState {
    var loaded = ""
    var active: [String] = []
}

/// Reads its greeter once loaded and at every activation, through the tree only.
private final class GreetingModel: ViewModel<Greeting>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: Greeting())
    }

    func didLoad() {
        let greeting = dependency(GreeterKey.self).greeting
        write { $0.loaded = greeting }
    }

    func didBecomeActive(_ activation: Activation<GreetingModel>) {
        let greeting = dependency(GreeterKey.self).greeting
        write { $0.active.append(greeting) }
    }
}

/// Reads a key with no default at its first activation.
private final class RegionModel: ViewModel<Greeting>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: Greeting())
    }

    func didBecomeActive(_ activation: Activation<RegionModel>) {
        let region = dependency(RegionKey.self)
        write { $0.loaded = region }
    }
}

@Suite @MainActor struct ScopedDependencyTests {
    @Test func aBoundModelReadsInDidLoadAndDidBecomeActive() {
        let root = RootScope()
        let app = Scope()
        app.provide(GreeterKey.self, FixedGreeter(greeting: "app"))
        root.host(app)
        let model = GreetingModel()
        let screen = Scope()
        screen.bind(model)
        app.host(screen)
        #expect(model.state == Greeting(loaded: "app", active: ["app"]))
    }

    @Test func aModelWithNoProviderReadsTheDefault() {
        let root = RootScope()
        let model = GreetingModel()
        let screen = Behavior()
        screen.bind(model)
        root.host(screen)
        #expect(model.state == Greeting(loaded: "live", active: ["live"]))
    }

    @Test func aModelMovedToAnotherHostReadsItsValuesAtItsNextActivation() {
        let root = RootScope()
        let signedOut = Scope()
        signedOut.provide(GreeterKey.self, FixedGreeter(greeting: "guest"))
        let signedIn = Scope()
        signedIn.provide(GreeterKey.self, FixedGreeter(greeting: "member"))
        root.host([signedOut, signedIn])
        let model = GreetingModel()
        let screen = Behavior()
        screen.bind(model)
        signedOut.host(screen)

        signedIn.host(screen)

        // Loaded once, under the first host; active under each host in turn.
        #expect(model.state == Greeting(loaded: "guest", active: ["guest", "member"]))
    }

    @Test func aTestOverridesWhatAFeatureProvidesForItself() {
        // The feature provides the live greeter for itself; the test's root forces its own over the whole subtree.
        let feature = Scope()
        feature.provide(GreeterKey.self, FixedGreeter(greeting: "feature"))
        let model = GreetingModel()
        let screen = Behavior()
        screen.bind(model)
        feature.host(screen)
        let root = RootScope()
        root.override(GreeterKey.self, FixedGreeter(greeting: "stub"))
        root.host(feature)
        #expect(model.state == Greeting(loaded: "stub", active: ["stub"]))
    }

    @Test func aMissingKeyTrapsWithThePathToTheModelsBehavior() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let root = RootScope()
                let screen = Behavior()
                screen.bind(RegionModel())
                root.host(screen)
            }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("No value for RegionKey at RootScope → Behavior"))
    }
}
