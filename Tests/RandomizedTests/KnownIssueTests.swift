import ScopeKit
import Testing

/// Library issues the randomized runs found, now fixed; each test here failed (or crashed) before its fix. The
/// randomized runs still steer around the hook changes that lead to them unless `SOBREIRO_FUZZ_KNOWN_ISSUES=1`:
/// with that variable and 600-step sequences, seed 376 still has the library and the reference disagree on
/// whether a node that only a queued change still names outlives its host.
enum KnownIssue {
    static let moveDuringTeardown = "moving a node whose host is being deallocated"
    static let releaseInQueue = "detaching, from a hook, a node that only its host owns"
}

@Suite("Issues found by the randomized runs")
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
        // An optimized build may release the root right after its last use: it lives until the log is cleared.
        withExtendedLifetime(root) { log.entries = [] }

        // When the root is released.
        root = nil

        // Then b left the dead root properly, then joined `other`: its activation work is cancelled.
        #expect(
            log.entries == [
                "a.willDeactivate", "a.didDeactivate", "a.willDetach", "a.didDetach",
                "b.willDeactivate", "b.didDeactivate", "b.willDetach", "b.didDetach", "b.willAttach",
            ]
        )
        #expect(b.host === other)
        #expect(b.state == .attached)
        #expect(b.work.live == 0, "b is not active, so none of its activation work may run")
    }

    @Test("S7, S8: a node detached in a hook, owned only by its host, dies and orphans its children without a crash")
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

        // Then c was orphaned: it ends detached. (The orphaning was once appended to the queue while the queue was
        // being cleared, and `Lifecycle.perform` trapped in `removeAll` with "moveInitialize with negative count".)
        #expect(weakB == nil)
        #expect(c.state == .detached)
        #expect(c.work.live == 0)
    }
}
