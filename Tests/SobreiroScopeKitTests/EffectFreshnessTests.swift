import Dispatch
import Foundation
import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

/// A view that blocks in `render` for the first state that matches `isSlow`, until the test releases it: while it
/// blocks, the thread that delivers to it cannot deliver to the subscribers after it.
///
/// Only the thread that ``write(_:to:)`` starts ever blocks here. Were the slow state delivered by another thread, a
/// thread of the shared pool that runs an effect's write-back, blocking it would hold up the tasks of every test, and
/// could deadlock with what the test awaits: that render records a failure instead.
final class SlowView: StatefulView, @unchecked Sendable {
    private let isSlow: @Sendable (Feed) -> Bool
    private let entered = Gate<Bool>()
    private let released = DispatchSemaphore(value: 0)
    private let hasBlocked = Locked(false)
    private let writer = Locked<Thread?>(nil)

    init(blockingOn isSlow: @escaping @Sendable (Feed) -> Bool) {
        self.isSlow = isSlow
    }

    func render(state: Feed) {
        guard isSlow(state),
            !hasBlocked.withLock({ blocked in
                defer { blocked = true }; return blocked
            })
        else {
            return
        }
        entered.open(true)
        guard let writer = writer.withLock({ $0 }), Thread.current == writer else {
            Issue.record("the slow state \(state) was delivered on another thread than its writer's")
            return
        }
        _ = released.wait(timeout: .now() + patience)
    }

    /// Writes `change` on a thread of its own, which then blocks delivering it to this view; returns once it does.
    /// A thread of its own: a blocked thread of the shared pool would hold up the tasks of the tests.
    ///
    /// - Returns: A semaphore signalled once the write has returned.
    func write(_ change: @escaping @Sendable (inout Feed) -> Void, to model: FeedModel) async -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            model.write { change(&$0.whole) }
            done.signal()
        }
        writer.withLock { $0 = thread }
        thread.start()
        _ = await withDeadline { await self.entered.wait() }
        return done
    }

    /// Lets the blocked render return.
    func release() {
        released.signal()
    }
}

/// Waits, with a deadline, until no operation of `model`'s effects runs: each one has written back or dropped
/// its result.
func effectsStopped(of model: FeedModel) async {
    guard let activity = EffectActivity.of(model) else { return }
    let stopped = await activity.wait(until: .stopped) { expire in
        DispatchQueue.global().asyncAfter(deadline: .now() + patience, execute: expire)
    }
    #expect(stopped, "the effects did not stop within \(Int(patience)) s")
}

@Suite("B3: effects never write into a state that has moved on")
@MainActor
struct EffectFreshnessTests {
    @Test("B3: cancelOnNewState: a result is dropped once a newer state committed, though a slow view holds it up")
    func predicateRunDroppedWhileDeliveryIsHeldUp() async {
        // Given a run under way for query "a", and a view ahead of the effect that blocks on query "b"
        let gate = Gate<String>()
        let live = LiveCount()
        let model = FeedModel { _, activation in
            activation.effect(.when { $0.query == "a" }) { _ in
                live.enter()
                defer { live.leave() }
                return await gate.wait(honoursCancellation: false)!
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let view = SlowView { $0.query == "b" }
        model.subscribe(view: view)
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        model.write { $0.query = "a" }
        await withDeadline { await live.until(1) }

        // When "b" commits, and the run finishes while the delivery of "b" has not reached the effect yet
        let writer = await view.write({ $0.query = "b" }, to: model)
        gate.open("result for a")
        await effectsStopped(of: model)

        // Then the run's result is dropped
        #expect(model.state.results == [], "the run for \"a\" wrote into \(model.state)")
        view.release()
        await expectSignalled(writer)
        behavior.detach()
    }

    @Test("B3: cancelOnNewState: a value's result is dropped once the value changed, kept after other changes")
    func valueRunDroppedOnlyWhenTheValueMovedOn() async {
        let gates = ["a": Gate<String>(), "c": Gate<String>()]
        let checks = Locked(0)
        let model = FeedModel { _, activation in
            activation.effect(
                .onChange(of: {
                    checks.withLock { $0 += 1 }; return $0.query
                })
            ) { query in
                await gates[query]?.wait(honoursCancellation: false) ?? ""
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let view = SlowView { $0.query == "b" }
        model.subscribe(view: view)
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        await effectsStopped(of: model)

        // A change of another part of the state leaves the run for "c" current.
        model.write { $0.query = "c" }
        model.write { $0.count = 1 }
        gates["c"]!.open("C")
        await effectsStopped(of: model)
        #expect(model.state.results == ["", "C"])

        // A new value, committed while a slow view holds up its delivery, keeps the run for the old one from
        // writing back, and drops it once it reaches the effect.
        model.write { $0.query = "a" }
        let writer = await view.write({ $0.query = "b" }, to: model)
        let checked = checks.withLock { $0 }
        gates["a"]!.open("A")
        await valueChecked(since: checked, by: checks)
        #expect(model.state.results == ["", "C"], "the run for \"a\" wrote into \(model.state)")

        view.release()
        await expectSignalled(writer)
        await effectsStopped(of: model)
        #expect(model.state.results == ["", "C", ""], "the run for \"a\" wrote into \(model.state)")
        behavior.detach()
    }

    @Test("B3: cancelOnNewState: a run that found its value changed writes back once the value is back")
    func valueThatCameBackAfterTheRunChecked() async {
        // Given a run under way for "a", and a view ahead of the effect that blocks on count 1
        let gate = Gate<String>()
        let checks = Locked(0)
        let model = FeedModel { _, activation in
            activation.effect(
                .onChange(of: {
                    checks.withLock { $0 += 1 }; return $0.query
                })
            ) { query in
                query == "a" ? await gate.wait(honoursCancellation: false)! : ""
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let view = SlowView { $0.count == 1 }
        model.subscribe(view: view)
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        await effectsStopped(of: model)
        model.write { $0.query = "a" }

        // When, while the view holds up every delivery, "b" commits, the run finds it when it checks its value,
        // and "a" commits again: the effect hears neither change, for its value ends as it was
        let writer = await view.write({ $0.count = 1 }, to: model)
        model.write { $0.query = "b" }
        let checked = checks.withLock { $0 }
        gate.open("A")
        await valueChecked(since: checked, by: checks)
        model.write { $0.query = "a" }
        view.release()
        await expectSignalled(writer)

        // Then the run writes its result into the state that holds its value again, rather than leave it
        // without an answer for good
        await effectsStopped(of: model)
        #expect(model.state.results == ["", "A"], "the run for \"a\" never wrote back: \(model.state)")
        behavior.detach()
    }

    @Test("B3: cancelOnNewState: a value that changes back before the effect hears of it counts as unchanged")
    func valueThatCameBack() async {
        let gate = Gate<String>()
        let model = FeedModel { _, activation in
            activation.effect(.onChange(of: \.query)) { query in
                query == "a" ? await gate.wait(honoursCancellation: false)! : ""
            } reduce: { state, result in
                if state.query == "a" { state.results.append(result.get()) }
            }
        }
        let view = SlowView { $0.query == "b" }
        model.subscribe(view: view)
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        model.write { $0.query = "a" }

        let writer = await view.write({ $0.query = "b" }, to: model)
        model.write { $0.query = "a" }
        gate.open("A")
        await effectsStopped(of: model)
        #expect(model.state.results == ["A"], "the run wrote into the state that holds its value again")

        // The delivery of "b" reaches the effect, then "a" again: a change of the value, which starts a run.
        view.release()
        await expectSignalled(writer)
        await effectsStopped(of: model)
        #expect(model.state.results == ["A", "A"])
        behavior.detach()
    }

    @Test("B3: cancelOnNewState: a feedback loop with a slow view never writes a step into a state that moved on")
    func levelsLoopWithASlowView() async {
        let strays = Locked<[String]>([])
        let model = FeedModel { _, activation in
            for rising in [true, false] {
                activation.effect(.when { ($0.count == 0) == rising && (rising ? $0.level < 8 : $0.level > 0) }) {
                    state in
                    await Task.yield()
                    return state
                } reduce: { state, trigger in
                    let started = trigger.get()
                    if state != started { strays.withLock { $0.append("\(started) → \(state)") } }
                    state.level += rising ? 1 : -1
                }
            }
        }
        let spinner = SpinningView(spins: 2_000)
        model.subscribe(view: spinner)
        let root = RootScope()
        let behavior = hostBound(model, under: root)

        // Another thread turns the level round again and again while the loop runs.
        await withDeadline {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for turn in 1...400 {
                        model.write { $0.count = turn % 2 }
                        await Task.yield()
                    }
                }
            }
        }
        behavior.detach()
        await effectsStopped(of: model)
        #expect(strays.withLock { $0 } == [])
        withExtendedLifetime(spinner) {}
    }

    @Test("B3: continueOnNewState: runs for each state delivered to the effect; intermediate ones may be coalesced")
    func continueRunsForDeliveredStates() async {
        let triggers = Locked<[String]>([])
        let model = FeedModel { _, activation in
            activation.effect(.when { $0.query.hasPrefix("q") }, strategy: .continueOnNewState) { state in
                triggers.withLock { $0.append(state.query) }
            } reduce: { _, _ in
            }
        }
        let view = SlowView { $0.query == "q1" }
        model.subscribe(view: view)
        let root = RootScope()
        let behavior = hostBound(model, under: root)

        // While a slow view holds up the delivery of "q1", "q2" and "q3" commit.
        let writer = await view.write({ $0.query = "q1" }, to: model)
        model.write { $0.query = "q2" }
        model.write { $0.query = "q3" }
        view.release()
        await expectSignalled(writer)
        await effectsStopped(of: model)

        // Each run is a task of its own, so the two may record in either order.
        #expect(
            triggers.withLock { $0 }.sorted() == ["q1", "q3"], "\"q2\" was coalesced away before it reached the effect")
        behavior.detach()
    }
}

/// A view that keeps the delivering thread busy for a moment at each render.
final class SpinningView: StatefulView, @unchecked Sendable {
    let spins: Int
    private let sink = Locked(0)

    init(spins: Int) {
        self.spins = spins
    }

    func render(state: Feed) {
        for _ in 0..<spins { sink.withLock { $0 &+= 1 } }
    }
}

/// Waits, with a deadline, until an effect's value closure, which counts its calls in `checks`, has run since it
/// had run `checked` times: with every delivery held up, only a run checking its value calls it.
func valueChecked(since checked: Int, by checks: Locked<Int>) async {
    await withDeadline {
        while checks.withLock({ $0 }) == checked { try? await Task.sleep(for: .milliseconds(1)) }
    }
}
