import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import Testing

private struct LoadError: Error, CustomStringConvertible {
    var description: String { "offline" }
}

@Suite("B3: effects")
@MainActor
struct EffectTests {
    @Test("B3: an effect runs for a matching state and writes its result back in a transaction")
    func predicateEffectWritesBack() async {
        let model = FeedModel(Feed(query: "cork")) { _, activation in
            activation.effect(.when { $0.query != "" && $0.results.isEmpty }) { state in
                [state.query.uppercased()]
            } reduce: { state, result in
                state.results = result.get()
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)

        let loaded = await firstState(of: model) { !$0.results.isEmpty }
        #expect(loaded?.results == ["CORK"])
        behavior.detach()
    }

    @Test("B3: a failing operation reaches the model as a value it turns into an error state")
    func failureIsAValue() async {
        let model = FeedModel(Feed(query: "cork")) { _, activation in
            activation.effect(.onChange(of: \.query)) { _ throws -> [String] in
                throw LoadError()
            } reduce: { state, result in
                switch result {
                case .success(let items): state.results = items
                case .failure(let error): state.failure = "\(error)"
                }
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)

        let failed = await firstState(of: model) { $0.failure != nil }
        #expect(failed?.failure == "offline")
        behavior.detach()
    }

    @Test("B3: a key-path effect runs for the current value and each change of it, not for other changes")
    func keyPathEffectFollowsItsValue() async {
        let triggers = Locked<[String]>([])
        let model = FeedModel(Feed(query: "a")) { _, activation in
            activation.effect(.onChange(of: \.query)) { query in
                triggers.withLock { $0.append(query) }
                return query
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        _ = await firstState(of: model) { $0.results == ["a"] }

        model.write { $0.count = 1 }
        model.write { $0.query = "b" }

        _ = await firstState(of: model) { $0.results == ["a", "b"] }
        #expect(triggers.withLock { $0 } == ["a", "b"], "the change of count started nothing")
        behavior.detach()
    }

    @Test("B3: cancelOnNewState cancels the running operation, and its late result is never written")
    func cancelOnNewState() async {
        let gates = ["a": Gate<String>(), "b": Gate<String>()]
        let sawCancellation = Locked<[String]>([])
        let live = LiveCount()
        let model = FeedModel(Feed(query: "a")) { _, activation in
            activation.effect(.onChange(of: \.query)) { query in
                live.enter()
                defer { live.leave() }
                let result = await gates[query]!.wait(honoursCancellation: false)!
                if Task.isCancelled { sawCancellation.withLock { $0.append(query) } }
                return result
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        // Running, not only recorded: a run replaced before its task starts never calls the operation.
        await withDeadline { await live.until(1) }

        model.write { $0.query = "b" }
        gates["b"]!.open("B")
        _ = await firstState(of: model) { $0.results == ["B"] }
        gates["a"]!.open("A")
        await withDeadline { await live.until(0) }

        #expect(model.state.results == ["B"], "the replaced operation's result was dropped")
        #expect(sawCancellation.withLock { $0 } == ["a"])
        behavior.detach()
    }

    @Test("B3: cancelOnNewState also cancels when the new state no longer matches")
    func cancelWhenNoLongerMatching() async {
        let gate = Gate<String>()
        let live = LiveCount()
        let model = FeedModel(Feed(query: "a")) { _, activation in
            activation.effect(.when { $0.query == "a" }) { _ in
                live.enter()
                defer { live.leave() }
                return await gate.wait(honoursCancellation: false)!
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        await withDeadline { await live.until(1) }

        model.write { $0.query = "" }
        gate.open("stale")
        await withDeadline { await live.until(0) }

        #expect(model.state.results == [], "the operation for a state that no longer matches was dropped")
        behavior.detach()
    }

    @Test("B3: continueOnNewState lets every operation finish and write back")
    func continueOnNewState() async {
        let gates = ["a": Gate<String>(), "b": Gate<String>()]
        let model = FeedModel(Feed(query: "a")) { _, activation in
            activation.effect(.onChange(of: \.query), strategy: .continueOnNewState) { query in
                await gates[query]!.wait()!
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)

        model.write { $0.query = "b" }
        gates["b"]!.open("B")
        _ = await firstState(of: model) { $0.results == ["B"] }
        gates["a"]!.open("A")

        let final = await firstState(of: model) { $0.results.count == 2 }
        #expect(final?.results == ["B", "A"])
        behavior.detach()
    }

    @Test("B3: deactivation cancels every operation, no task outlives it, and nothing writes back after")
    func deactivationCancelsAndFences() async {
        let stubborn = Gate<String>()
        let polite = Gate<String>()
        let live = LiveCount()
        let model = FeedModel(Feed(query: "a")) { _, activation in
            activation.effect(.onChange(of: \.query)) { _ in
                live.enter()
                defer { live.leave() }
                return await stubborn.wait(honoursCancellation: false)!
            } reduce: { state, result in
                state.results.append(result.get())
            }
            activation.effect(.onChange(of: \.query)) { _ in
                live.enter()
                defer { live.leave() }
                return await polite.wait() ?? "cancelled"
            } reduce: { state, result in
                state.results.append(result.get())
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        await withDeadline { await live.until(2) }

        behavior.detach()
        stubborn.open("late")
        await withDeadline { await live.until(0) }

        #expect(model.state.results == [], "nothing was written back after deactivation")
        #expect(live.value == 0)
    }

    @Test("misuse: an effect started on an activation that has ended refuses to start")
    func effectOnEndedActivation() async {
        var kept: Activation<FeedModel>?
        let model = FeedModel { _, activation in kept = activation }
        let root = RootScope()
        let behavior = hostBound(model, under: root)
        behavior.detach()
        let ran = Locked(false)

        let started = kept!.effect(.when { _ in true }) { _ in
            ran.withLock { $0 = true }
        } reduce: { _, _ in
        }

        #expect(started == false)
        #expect(ran.withLock { $0 } == false)
        #expect(model.subscriberCount == 0)
        kept = nil  // it holds the model, whose closure holds this variable
    }

    @Test("B3: two effects and a transaction form a feedback loop that settles")
    func levelsFeedbackLoop() async {
        // Rises one level at a time to 5, then a second effect resets the count of climbs.
        let model = FeedModel { _, activation in
            activation.effect(.when { $0.level < 5 }) { state in
                state.level + 1
            } reduce: { state, next in
                state.level = next.get()
                state.count += 1
            }
            activation.effect(.when { $0.level == 5 && $0.results.isEmpty }) { state in
                "reached \(state.level) in \(state.count) steps"
            } reduce: { state, summary in
                state.results = [summary.get()]
            }
        }
        let root = RootScope()
        let behavior = hostBound(model, under: root)

        let settled = await firstState(of: model) { !$0.results.isEmpty }
        #expect(settled?.level == 5)
        #expect(settled?.results == ["reached 5 in 5 steps"])
        behavior.detach()
    }
}
