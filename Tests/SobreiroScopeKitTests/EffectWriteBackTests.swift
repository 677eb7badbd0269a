import Dispatch
import Foundation
import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import TestSupport
import Testing

/// A state whose synthesized `==` is not reflexive while `reading` is NaN, as any state with a `Double` can be.
struct Gauge: ViewState {
    var phase = "idle"
    var reading = Double.nan
    var results: [String] = []
}

/// A bound model of a `Gauge` that runs `onActive` at each activation.
final class GaugeModel: ViewModel<Gauge>, ScopedViewModel, @unchecked Sendable {
    let onActive: @MainActor (Activation<GaugeModel>) -> Void

    @MainActor
    init(onActive: @escaping @MainActor (Activation<GaugeModel>) -> Void) {
        self.onActive = onActive
        super.init(initialState: Gauge())
    }

    func didBecomeActive(_ activation: Activation<GaugeModel>) {
        onActive(activation)
    }
}

@Suite("B3, R4: a write-back checks its trigger outside the model's lock, then compares versions in its transaction")
@MainActor
struct EffectWriteBackTests {
    @Test("B3: when: a matching state whose == is not reflexive (a NaN field) still starts its run and writes back")
    func stateWithNaNStillRuns() async {
        let model = GaugeModel { activation in
            activation.effect(.when { $0.phase == "loading" }) { _ in
                "done"
            } reduce: { state, result in
                state.results.append(result.get())
                state.phase = "loaded"
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        model.write { $0.phase = "loading" }

        let loaded = await withDeadline {
            for await state in model.states where state.phase == "loaded" { return true }
            return false
        }
        #expect(loaded == true)
        #expect(model.state.results == ["done"], "the run never wrote back: \(model.state)")
        behavior.detach()
    }

    @Test(
        "R4: onChangeOf: the value closure of a write-back runs outside the model's lock, so a user lock cannot deadlock"
    )
    func valueClosureOutsideTheModelLock() async {
        // A user lock that the value closure takes once armed, and that a user thread holds while it writes the model.
        let userLock = NSLock()
        let armed = Locked(false)
        let closureEntered = DispatchSemaphore(value: 0)
        let cycle = Locked(false)
        let gate = Gate<String>()
        let live = LiveCount()
        let model = FeedModel { _, activation in
            activation.effect(
                .onChange(of: { (state: Feed) -> String in
                    // Only the first call after arming takes part; every other call is a plain read.
                    guard
                        armed.withLock({ armed in
                            defer { armed = false }; return armed
                        })
                    else { return state.query }
                    closureEntered.signal()
                    // Under the model's lock, this waits for the writer, which waits for the model's lock: the
                    // timeout turns that cycle into a finding instead of a hang; only a cycle ever reaches it.
                    if userLock.lock(before: Date().addingTimeInterval(patience)) {
                        userLock.unlock()
                    } else {
                        cycle.withLock { $0 = true }
                    }
                    return state.query
                })
            ) { query in
                guard query == "a" else { return "" }
                live.enter()
                defer { live.leave() }
                return await gate.wait(honoursCancellation: false)!
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        await effectsStopped(of: model)
        model.write { $0.query = "a" }
        await withDeadline { await live.until(1) }

        // A user thread takes its lock and, once the write-back's value closure is under way, writes the model.
        let held = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        armed.withLock { $0 = true }
        Thread.detachNewThread {
            userLock.lock()
            held.signal()
            _ = closureEntered.wait(timeout: .now() + patience)
            model.write { $0.count += 1 }
            userLock.unlock()
            writerDone.signal()
        }
        await expectSignalled(held)
        gate.open("A")
        await expectSignalled(writerDone)
        await effectsStopped(of: model)

        #expect(!cycle.withLock { $0 }, "the value closure ran under the model's lock, in a cycle with the user's lock")
        // The write that slipped in changed another part of the state: the run's value still holds, so it writes.
        #expect(model.state.results == ["", "A"], "\(model.state)")
        behavior.detach()
    }

    @Test("B3: concurrent writers and a slow view: no result lands in a state that moved on, and none stalls")
    func concurrentWritersNeitherStrayNorStall() async {
        let strays = Locked<[String]>([])
        let model = FeedModel { _, activation in
            activation.effect(.when { $0.query == "go" && $0.results.isEmpty }) { state in
                await Task.yield()
                return state
            } reduce: { state, started in
                let started = started.get()
                if state != started { strays.withLock { $0.append("\(started.count) → \(state.count)") } }
                state.results.append("r\(started.count)")
            }
            activation.effect(.onChange(of: \.count)) { count in
                await Task.yield()
                return count
            } reduce: { state, count in
                if state.count != count.get() { strays.withLock { $0.append("value \(count) → \(state.count)") } }
                state.level = count.get()
            }
        }
        let spinner = SpinningView(spins: 500)
        model.subscribe(view: spinner)
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        model.write { $0.query = "go" }

        for round in 0..<5 {
            let done = DispatchSemaphore(value: 0)
            for writer in 0..<3 {
                Thread.detachNewThread {
                    for step in 1...300 { model.write { $0.count = writer * 1_000 + step } }
                    done.signal()
                }
            }
            for _ in 0..<3 { await expectSignalled(done) }
            let finished = await withDeadline {
                for await state in model.states where !state.results.isEmpty && state.level == state.count {
                    return true
                }
                return false
            }
            #expect(finished == true, "round \(round) stalled at \(model.state)")
            model.write { $0.results = [] }
        }
        behavior.detach()
        #expect(strays.withLock { $0 } == [])
        withExtendedLifetime(spinner) {}
    }
}
