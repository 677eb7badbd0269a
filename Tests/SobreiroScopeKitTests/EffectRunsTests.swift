import SobreiroScopeKit
import Testing

/// The decisions of ``EffectRuns``, stepped by hand: jobs and waiters are names, so each step's outcome reads as
/// the runner would perform it.
@Suite("The runs of an effect, as a state machine")
struct EffectRunsTests {
    typealias Runs = EffectRuns<String, String>

    static func trigger(starts: Bool, replaces: Bool) -> @Sendable (inout Runs) -> String {
        { runs in
            let (run, actions) = runs.trigger(starts: starts, replaces: replaces)
            return describe(run: run, actions: actions)
        }
    }

    static func describe(run: UInt64?, actions: Runs.Actions) -> String {
        var parts: [String] = []
        if let run { parts.append("run \(run)") }
        let cancelled = ([actions.cancelled.first].compactMap { $0 } + actions.cancelled.others).sorted()
        if !cancelled.isEmpty { parts.append("cancel " + cancelled.joined(separator: " ")) }
        if !actions.resumed.isEmpty { parts.append("resume " + actions.resumed.joined(separator: " ")) }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }

    /// Runs the steps in order on one machine, and checks each outcome.
    func play(_ steps: [(String, @Sendable (inout Runs) -> String, String)]) {
        var runs = Runs()
        for (name, action, expected) in steps {
            #expect(action(&runs) == expected, "\(name)")
        }
    }

    @Test("a trigger that replaces cancels the wanted runs' jobs, resumes their waiting write-backs, and starts one")
    func replacing() {
        play([
            ("first trigger", Self.trigger(starts: true, replaces: true), "run 1"),
            ("its job", { "\($0.setJob("a", of: 1))" }, "true"),
            ("a write-back waits", { "\($0.wait("w", of: 1, after: 0))" }, "true"),
            ("second trigger", Self.trigger(starts: true, replaces: true), "run 2, cancel a, resume w"),
            ("the first run is gone", { "\($0.isWanted(1)), \($0.isWanted(2))" }, "false, true"),
            ("a late job of run 1 is refused: cancel it", { "\($0.setJob("late", of: 1))" }, "false"),
        ])
    }

    @Test(
        "a trigger that does not start still ends the runs it replaces; one that neither starts nor replaces does nothing"
    )
    func passingOver() {
        play([
            ("start", Self.trigger(starts: true, replaces: true), "run 1"),
            ("job", { "\($0.setJob("a", of: 1))" }, "true"),
            ("a state that does not match", Self.trigger(starts: false, replaces: true), "cancel a"),
            ("nothing left", { "\($0.wantedCount)" }, "0"),
            ("continue strategy, no match", Self.trigger(starts: false, replaces: false), "nothing"),
        ])
    }

    @Test("runs that do not replace each other are all wanted, beyond the one held inline, and all stop together")
    func sideBySide() {
        play([
            ("one", Self.trigger(starts: true, replaces: false), "run 1"),
            ("two", Self.trigger(starts: true, replaces: false), "run 2"),
            ("three", Self.trigger(starts: true, replaces: false), "run 3"),
            (
                "jobs", { "\($0.setJob("a", of: 1)) \($0.setJob("b", of: 2)) \($0.setJob("c", of: 3))" },
                "true true true"
            ),
            ("wanted", { "\($0.wantedCount)" }, "3"),
            ("stop", { Self.describe(run: nil, actions: $0.stop(ending: false).actions) }, "cancel a b c"),
            ("a trigger after a stop starts again", Self.trigger(starts: true, replaces: true), "run 4"),
        ])
    }

    @Test("a one-shot write claims its run once; a long run's writes claim it each time and keep it wanted")
    func claims() {
        play([
            ("one-shot", Self.trigger(starts: true, replaces: false), "run 1"),
            ("claimed", { "\($0.claim(1, keeping: false))" }, "true"),
            ("claimed again: refused", { "\($0.claim(1, keeping: false))" }, "false"),
            ("committing", { "\($0.committing)" }, "1"),
            (
                "returned",
                { runs in
                    runs.committed(); return "\(runs.committing)"
                }, "0"
            ),
            ("long run", Self.trigger(starts: true, replaces: true), "run 2"),
            ("first write", { "\($0.claim(2, keeping: true))" }, "true"),
            ("second write", { "\($0.claim(2, keeping: true))" }, "true"),
            ("still wanted, two committing", { "\($0.isWanted(2)), \($0.committing)" }, "true, 2"),
        ])
    }

    @Test("stopping while a write commits says to wait for it; ending refuses every later trigger and write")
    func stoppingAndEnding() {
        play([
            ("start", Self.trigger(starts: true, replaces: true), "run 1"),
            ("claimed, in its transaction", { "\($0.claim(1, keeping: true))" }, "true"),
            ("end", { "\($0.stop(ending: true).waitsForCommit)" }, "true"),
            (
                "the write returns",
                { runs in
                    runs.committed(); return "\(runs.committing)"
                }, "0"
            ),
            ("a later write of the run is refused", { "\($0.claim(1, keeping: true))" }, "false"),
            ("a later trigger starts nothing", Self.trigger(starts: true, replaces: true), "nothing"),
            ("nothing commits: a stop waits for nothing", { "\($0.stop(ending: true).waitsForCommit)" }, "false"),
        ])
    }

    @Test("a write-back that found its value not held waits for the next state heard, unless one was heard since")
    func waitingForAState() {
        play([
            ("start", Self.trigger(starts: true, replaces: false), "run 1"),
            ("heard so far", { "\($0.heard)" }, "0"),
            ("waits", { "\($0.wait("w", of: 1, after: 0))" }, "true"),
            ("a state heard resumes it", { $0.hear().joined(separator: " ") }, "w"),
            ("a wait that missed a state does not wait", { "\($0.wait("x", of: 1, after: 0))" }, "false"),
            (
                "nor one of an unwanted run",
                { runs in
                    runs.forget(1); return "\(runs.wait("y", of: 1, after: 1))"
                }, "false"
            ),
        ])
    }
}
