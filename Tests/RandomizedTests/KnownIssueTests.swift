import ScopeKit
import Testing

/// Library issues the randomized runs found. Each test fails while its issue stands (recorded as a known issue,
/// or enabled on request for a crash); the randomized runs skip the hook changes that lead to them, unless
/// `SOBREIRO_FUZZ_KNOWN_ISSUES=1`.
enum KnownIssue {
    static let moveDuringTeardown = "moving a node whose host is being deallocated"
    static let releaseInQueue = "detaching, from a hook, a node that only its host owns"
}

@Suite("Known issues found by the randomized runs")
@MainActor
struct KnownIssueTests {
    /// A scope that counts its running activation work and runs a closure when it deactivates.
    final class Recorder: Scope {
        let name: String
        let log: Log
        let work = WorkCounter()
        var onDidDeactivate: () -> Void = {}
        var onWillAttach: () -> Void = {}

        init(_ name: String, log: Log) {
            self.name = name
            self.log = log
        }

        override func willAttach() {
            log.entries.append("\(name).willAttach")
            onWillAttach()
        }
        override func willActivate(cancellables: inout Set<AnyCancellable>) {
            log.entries.append("\(name).willActivate")
            work.cancellable().store(in: &cancellables)
        }
        override func willDeactivate() { log.entries.append("\(name).willDeactivate") }
        override func didDeactivate() {
            log.entries.append("\(name).didDeactivate")
            onDidDeactivate()
        }
        override func willDetach() { log.entries.append("\(name).willDetach") }
        override func didDetach() { log.entries.append("\(name).didDetach") }
    }

    final class Log {
        var entries: [String] = []
    }

    @Test("S5, S7, S8: a node moved by a hook while its host is deallocated leaves it fully, and stays moved")
    func moveDuringTeardown() {
        // Given a root hosting a and b, where a, as it deactivates, moves b to another scope.
        let log = Log()
        var root: RootScope? = RootScope()
        let a = Recorder("a", log: log)
        let b = Recorder("b", log: log)
        let other = Scope()
        root?.host(a)
        root?.host(b)
        a.onDidDeactivate = { b.attach(to: other) }
        log.entries = []

        // When the root is released.
        root = nil

        // Then b left the dead root properly, then joined `other`: its activation work is cancelled.
        withKnownIssue("b skips willDeactivate…didDetach, then its orphaning detaches it from `other`") {
            #expect(
                log.entries == [
                    "a.willDeactivate", "a.didDeactivate", "a.willDetach", "a.didDetach",
                    "b.willDeactivate", "b.didDeactivate", "b.willDetach", "b.didDetach", "b.willAttach",
                ]
            )
            #expect(b.host === other)
            #expect(b.state == .attached)
        }
        // What happens instead: b.willAttach alone, then b.willDetach, b.didDetach, and b ends detached with the
        // work of its last activation never cancelled.
        withKnownIssue("the work of b's activation outlives it") {
            #expect(b.work.live == 0, "b is not active, so none of its activation work may run")
        }
    }

    @Test("S5, S7, S8: the randomized harness reports the move during teardown when it does not steer around it")
    func harnessFindsMoveDuringTeardown() async {
        // The sequence that seed 394 shrank to, at 400 steps, before the harness learnt to steer around it.
        await withKnownIssue("the harness reports the node left detached, and shrinks the sequence") {
            await replay(
                operations: [
                    .makeNode(node: 2, model: .none),
                    .makeNode(node: 1, model: .none),
                    .arm(node: 2, hook: .didDeactivate, action: .attach(node: 1, to: .root)),
                    .attach(node: 2, to: .root),
                    .attach(node: 1, to: .root),
                    .replaceRoot,
                ],
                avoidingKnownIssues: false
            )
        }
    }

    @Test(
        "S7, S8: a node detached in a hook, owned only by its host, dies and orphans its children without a crash",
        .enabled(if: !FuzzConfiguration.avoidsKnownIssues, "crashes the test process: set SOBREIRO_FUZZ_KNOWN_ISSUES=1")
    )
    func releaseInQueue() {
        // Given b, owned by the root alone, hosting c, which the test keeps; and h, which detaches b as it attaches.
        let log = Log()
        let root = RootScope()
        var b: Recorder? = Recorder("b", log: log)
        let c = Recorder("c", log: log)
        c.attach(to: b!)
        root.host(b!)
        weak let weakB = b
        b = nil
        let h = Recorder("h", log: log)
        h.onWillAttach = { weakB?.detach() }

        // When h attaches: b's detach is queued, and b dies as the queue of changes is cleared.
        root.host(h)

        // Then c was orphaned: it ends detached. (Today the orphaning is appended to the queue while the queue is
        // being cleared: `Lifecycle.perform` traps in `removeAll` with "moveInitialize with negative count".)
        #expect(weakB == nil)
        #expect(c.state == .detached)
        #expect(c.work.live == 0)
    }
}
