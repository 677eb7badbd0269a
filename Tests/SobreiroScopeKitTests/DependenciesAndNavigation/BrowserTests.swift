import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Synchronization
import TestSupport
import Testing

// The tests of the "Dependencies and navigation" article: the repository browser under stub clients.

/// Lists what it holds, which a test may change, and answers a README for any repository.
final class StubClient: RepositoryClient {
    let listing: Mutex<[Repository]>

    init(_ listing: [Repository]) {
        self.listing = Mutex(listing)
    }

    func repositories() async throws -> [Repository] {
        listing.withLock { $0 }
    }

    func readme(of repository: Repository.ID) async throws -> String {
        "README of \(repository)"
    }
}

/// The repositories of the screens on the stack, bottom first.
@MainActor
func stack(of browser: BrowserScope) -> [Repository.ID] {
    browser.children.compactMap { ($0 as? RepositoryScope)?.detail.state.repository }
}

@Suite("Dependencies and navigation: the repository browser")
@MainActor
struct BrowserTests {
    let oak = Repository(id: 1, name: "oak")
    let cork = Repository(id: 2, name: "cork")

    @Test("the list reads the client that the test host gives it, and polls on the host's clock")
    func listUnderTestHost() async {
        let client = StubClient([oak])
        let list = TestHost(
            RepositoryListViewModel(), dependencies: DependencyValues().with(RepositoryClientKey.self, client))
        await list.settleEffects(timeout: patientWait)
        list.expect(RepositoryListState(repositories: [oak]))

        client.listing.withLock { $0.append(cork) }
        await list.clock.advance(by: .seconds(300))
        await list.settleEffects(timeout: patientWait)
        list.expect(RepositoryListState(repositories: [oak, cork]))
        list.detach()  // the list polls for as long as it is active
    }

    @Test("the whole browser under a test host: each screen of the stack is found by its destination, without casts")
    func wholeBrowserUnderTestHost() async throws {
        let browser = BrowserScope()
        let host = TestHost(
            browser.list, in: browser,
            dependencies: DependencyValues().with(RepositoryClientKey.self, StubClient([oak])))
        await host.settleEffects(timeout: patientWait)
        host.expect(RepositoryListState(repositories: [oak]))

        browser.navigation.open([cork.id, oak.id])
        let top = try #require(host.child(RepositoryDetailViewModel.self, id: browser.navigation.state.path[1].id))
        #expect(top.state.repository == oak.id)
        #expect(host.child(RepositoryDetailViewModel.self) == nil, "two screens: the destination tells them apart")

        browser.navigation.pop()
        let only = try #require(host.child(RepositoryDetailViewModel.self))
        #expect(only.state.repository == cork.id)
        host.detach()  // the list polls for as long as it is active
    }

    @Test("push, pop, a deep link and pop to root keep one screen per destination, in order")
    func navigation() async throws {
        let root = startBrowser(client: StubClient([oak, cork]))
        let browser = try #require(root.children.first as? BrowserScope)

        browser.navigation.push(oak.id)
        browser.navigation.push(cork.id)
        #expect(stack(of: browser) == [1, 2])
        let bottom = browser.children.first

        browser.navigation.pop()
        #expect(stack(of: browser) == [1])
        #expect(browser.children.first === bottom, "the screen below the one popped stays the same instance")

        browser.navigation.open([cork.id, oak.id, cork.id])
        #expect(stack(of: browser) == [2, 1, 2])
        #expect(browser.children.allSatisfy { $0.state == .active })
        for case let screen as RepositoryScope in browser.children {
            await settleEffects(of: screen.detail, timeout: patientWait)
            let id = screen.detail.state.repository
            #expect(screen.detail.state.link == "https://code.example/repositories/\(id)")
            #expect(screen.detail.state.readme == "README of \(id)")
        }

        let screens = browser.children
        browser.detach()
        #expect(browser.children.isEmpty, "a deactivated stack hosts no screen")
        root.host(browser)
        #expect(stack(of: browser) == [2, 1, 2])
        #expect(
            zip(screens, browser.children).allSatisfy { $0 !== $1 },
            "the next activation builds every screen again from the path")

        browser.navigation.popToRoot()
        #expect(browser.children.isEmpty)
        browser.detach()
    }

    @Test("a browser moved under another provider reads that provider's client at its next activation")
    func move() async {
        let clock = TestClock()
        let root = RootScope()
        root.provide(.testing(clock: clock))
        let office = Scope()
        office.provide(RepositoryClientKey.self, StubClient([oak]))
        let home = Scope()
        home.provide(RepositoryClientKey.self, StubClient([cork]))
        root.host(office)
        root.host(home)

        let browser = BrowserScope()
        office.host(browser)
        await settleEffects(of: browser.list, timeout: patientWait)
        #expect(browser.list.state.repositories == [oak])

        home.host(browser)
        await settleEffects(of: browser.list, timeout: patientWait)
        #expect(browser.list.state.repositories == [cork])
        browser.detach()
    }

    @Test("a read with no provider and no default stops the program, naming the key and the path")
    func missingClient() async {
        let child = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let root = RootScope()
                root.host(BrowserScope())
            }
        }
        let stderr = String(decoding: child?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("No value for RepositoryClientKey at RootScope → BrowserScope"), "\(stderr)")
    }
}
