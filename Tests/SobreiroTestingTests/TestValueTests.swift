import Foundation
import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

private protocol QuoteClient: Sendable {
    func quote() async throws -> String
    func cachedCount() -> Int
}

private struct LiveQuotes: QuoteClient {
    func quote() async throws -> String { "live" }
    func cachedCount() -> Int { 100 }
}

private struct StubQuotes: QuoteClient {
    let text: String
    func quote() async throws -> String { text }
    func cachedCount() -> Int { 1 }
}

/// Fails the test at the line of each member a test uses without providing a client.
private struct UnimplementedQuotes: QuoteClient {
    static let quoteLine = #line + 1
    func quote() async throws -> String { throw QuoteClientKey.unimplemented() }
    func cachedCount() -> Int {
        QuoteClientKey.unimplemented()
        return 0
    }
}

private enum QuoteClientKey: DependencyKey {
    static let defaultValue: any QuoteClient = LiveQuotes()
    static var testValue: any QuoteClient { UnimplementedQuotes() }
}

private enum GreetingKey: DependencyKey {
    static let defaultValue = "hello"
    static var testValue: String { defaultValue }
}

private struct Quote: ViewState {
    var text = ""
    var count = 0
    var greeting = ""
}

/// Reads its client in a method, on the main actor, as a button would call it.
@MainActor
private final class QuoteModel: ViewModel<Quote>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: Quote())
    }

    func didLoad() {
        let greeting = dependency(GreetingKey.self)
        write { $0.greeting = greeting }
    }

    func countTapped() {
        let count = dependency(QuoteClientKey.self).cachedCount()
        write { $0.count = count }
    }

    func refreshTapped() async {
        let client = dependency(QuoteClientKey.self)
        let text = (try? await client.quote()) ?? "failed"
        write { $0.text = text }
    }
}

@Suite("Dependencies in methods, and test values")
@MainActor
struct TestValueTests {
    @Test("W3: a model's methods read the values its tree provides")
    func methodsReadTheTree() async {
        let quotes = TestHost(
            QuoteModel(), dependencies: DependencyValues().with(QuoteClientKey.self, StubQuotes(text: "stub")))
        quotes.expect(Quote(greeting: "hello"))
        quotes.model.countTapped()
        await quotes.model.refreshTapped()
        quotes.expect(Quote(count: 1, greeting: "hello"), Quote(text: "stub", count: 1, greeting: "hello"))
    }

    @Test(
        "W4: a key's test value serves a test that provides none, and fails at the stub's line, naming the key and member"
    )
    func testValueFailsWhenUsed() async {
        let quotes = TestHost(QuoteModel())
        quotes.expect(Quote(greeting: "hello"))
        await withKnownIssue {
            await quotes.model.refreshTapped()
        } matching: { issue in
            issue.sourceLocation?.line == UnimplementedQuotes.quoteLine
                && text(of: issue).contains("the test used quote() of QuoteClientKey's test value")
                && text(of: issue).contains("DependencyValues().with(QuoteClientKey.self, value)")
        }
        quotes.expect(Quote(text: "failed", greeting: "hello"))
        withKnownIssue {
            quotes.model.countTapped()
        } matching: { issue in
            text(of: issue).contains("the test used cachedCount() of QuoteClientKey's test value")
        }
        #expect(quotes.model.state.count == 0, "the stub's placeholder")
    }

    @Test("W4: a stub's failure is an error that names the key and the member")
    func unimplementedIsAnError() async {
        // A stub reports through the test kit once the process uses it; a test value is read only in its trees.
        _ = TestClock()
        await withKnownIssue {
            let error = await #expect(throws: UnimplementedDependency.self) { try await UnimplementedQuotes().quote() }
            #expect(error?.key == "QuoteClientKey")
            #expect(error?.member == "quote()")
        }
    }

    @Test("W4: a tree that is not a test's reads the key's default, never its test value")
    func appTreesReadDefaults() {
        let model = QuoteModel()
        let root = RootScope()
        let screen = Behavior()
        screen.bind(model)
        root.host(screen)
        model.countTapped()
        #expect(model.state.count == 100)
        screen.detach()
    }

    @Test("W3: reading a dependency from a model that is not bound stops the program, naming the fix")
    func unboundModelTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { QuoteModel().countTapped() }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("QuoteModel read QuoteClientKey while it is not bound to a behavior"))
        #expect(stderr.contains("bind it with behavior.bind(model), or host it with TestHost"))
    }
}
