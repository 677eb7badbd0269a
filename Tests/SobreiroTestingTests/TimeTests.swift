import Dispatch
import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

struct Poll: ViewState {
    var ticks = 0
    var query = ""
    var results: [String] = []
}

/// Debounces its query on a clock, then "searches".
final class PollModel: ViewModel<Poll>, ScopedViewModel, @unchecked Sendable {
    let clock: TestClock

    init(clock: TestClock) {
        self.clock = clock
        super.init(initialState: Poll())
    }

    func didBecomeActive(_ activation: Activation<PollModel>) {
        activation.effect(.onChange(of: \.query)) { [clock] query in
            try await clock.sleep(for: .milliseconds(300))
            return query.isEmpty ? [] : [query, query + "s"]
        } reduce: { state, result in
            if case .success(let results) = result { state.results = results }
        }
    }
}

@Suite("Time and effects")
@MainActor
struct TimeTests {
    @Test("a sleeper wakes only once the clock has reached its deadline")
    func wakesInOrder() async {
        let clock = TestClock()
        let woken = Locked<[Int: Duration]>([:])
        let tasks = [3, 1, 7].map { seconds in
            Task.detached {
                try await clock.sleep(for: .seconds(seconds))
                woken.withLock { $0[seconds] = clock.now.offset }
            }
        }
        await waitUntilAsleep(clock, count: 3)

        await clock.advance(by: .seconds(5))
        for task in tasks.prefix(2) { try? await task.value }

        let wakes = woken.withLock { $0 }
        #expect(wakes.keys.sorted() == [1, 3], "the 7-second sleeper still sleeps")
        #expect(wakes.allSatisfy { $0.value >= .seconds($0.key) })
        #expect(clock.sleeperCount == 1)
        tasks[2].cancel()
        #expect(clock.now == TestClock.Instant(offset: .seconds(5)))
    }

    @Test("a cancelled sleeper throws CancellationError at once")
    func cancelledSleeper() async {
        let clock = TestClock()
        let task = Task.detached { try await clock.sleep(for: .seconds(10)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("a debounced effect runs only when the clock passes its delay; settling needs no sleep")
    func debouncedEffect() async {
        let clock = TestClock()
        let model = PollModel(clock: clock)
        let states = StateRecorder(subscribedTo: model)
        let hosted = Hosted(model)
        states.expect(Poll())

        model.write { $0.query = "oak" }
        await settleEffects(of: model, timeout: patience)
        await clock.advance(by: .milliseconds(299))
        states.expect(Poll(query: "oak"))

        await clock.advance(by: .milliseconds(1))
        states.expect(Poll(query: "oak", results: ["oak", "oaks"]))

        model.write { $0.query = "ash" }
        await settleEffects(of: model, timeout: patience)
        model.write { $0.query = "elm" }  // cancels the "ash" search before its delay ends
        await settleEffects(of: model, timeout: patience)
        await clock.advance(by: .seconds(1))
        states.expect(
            Poll(query: "ash", results: ["oak", "oaks"]), Poll(query: "elm", results: ["oak", "oaks"]),
            Poll(query: "elm", results: ["elm", "elms"]))

        hosted.screen.detach()
        await expectEffectsStopped(of: model)
    }

    @Test("settling a model that declared no effect fails, naming the likely mistake")
    func settleWrongObject() async {
        let screen = ViewModel(initialState: Poll())
        await withKnownIssue {
            await settleEffects(of: screen)
        } matching: { issue in
            text(of: issue).hasPrefix("ViewModel<Poll> has no effects to wait for")
        }
    }

    @Test("settling a model whose tree does not provide the testing values fails, saying how to provide them")
    func settleUntrackedTree() async {
        let clock = TestClock()
        let model = PollModel(clock: clock)
        let root = RootScope()  // no .testing(clock:): the model's effects report to no one
        let screen = Behavior()
        screen.bind(model)
        root.host(screen)
        model.write { $0.query = "oak" }
        await withKnownIssue {
            await settleEffects(of: model)
            expectEffectsFinished(of: model)
        } matching: { issue in
            text(of: issue).hasPrefix("PollModel runs effects in a tree that does not provide the testing values")
                && text(of: issue).contains("root.provide(.testing(clock: clock))")
        }
        screen.detach()
    }

    @Test("advance returns only once the effect it woke has written back, every time")
    func advanceWaitsForTheWriteBack() async {
        let clock = TestClock()
        let model = PollModel(clock: clock)
        let hosted = Hosted(model)
        var late = 0

        for round in 1...2_000 {
            let query = "q\(round)"
            model.write { $0.query = query }
            await settleEffects(of: model, timeout: patience)
            await clock.advance(by: .milliseconds(300))
            if model.state.results.first != query { late += 1 }
        }

        #expect(late == 0, "advance returned before the write-back in \(late) of 2000 rounds")
        hosted.screen.detach()
    }

    @Test(
        "an operation sleeping in two child tasks at once settles only once both sleep, every time",
        arguments: [false, true]
    )
    func parallelSleeps(onMainActor: Bool) async {
        let root = RootScope()
        var early = 0

        for _ in 1...500 {
            let clock = TestClock()
            root.override(.testing(clock: clock))
            let model = TwinSleepModel(clock: clock, onMainActor: onMainActor)
            let screen = Behavior()
            screen.bind(model)
            root.host(screen)

            await settleEffects(of: model, timeout: patience)
            let asleep = clock.sleeperCount
            await clock.advance(by: .seconds(2))

            if asleep != 2 || model.state.ticks != 3 { early += 1 }
            screen.detach()
        }

        #expect(early == 0, "settling returned before both child tasks slept in \(early) of 500 rounds")
    }

    @Test("settling fails, instead of hanging, while an operation waits for something other than the clock")
    func settleTimesOut() async {
        let never = AsyncStream<Int>.makeStream()
        let model = FeedbackModel(wait: never.stream)
        let hosted = Hosted(model)

        await withKnownIssue {
            await settleEffects(of: model, timeout: .milliseconds(50))
        } matching: { issue in
            text(of: issue).contains("did not settle within") && text(of: issue).contains("1 operation(s) still run")
        }
        never.continuation.finish()
        hosted.screen.detach()
        await expectEffectsStopped(of: model)
    }

    @Test("a wait that settled keeps no effect activity alive until its timeout")
    func settledWaitReleasesTheActivity() async {
        weak var activity: EffectActivity?
        do {
            let clock = TestClock()
            let model = PollModel(clock: clock)
            let hosted = Hosted(model)
            activity = EffectActivity.of(model)
            #expect(activity != nil)

            await settleEffects(of: model, timeout: .seconds(600))
            hosted.screen.detach()
            await expectEffectsStopped(of: model, timeout: .seconds(600))
        }

        // The operation's task lets go of the activity soon after it ends; the waits' timers must not hold it.
        let deadline = ContinuousClock.now.advanced(by: patience)
        while activity != nil, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(activity == nil, "an effect activity outlived its model, its clock and its settled waits")
    }

    @Test(
        "a model at the address of a dead one, whose operation still runs, settles on its own operations",
        .disabled(if: isAddressSanitizerActive, "AddressSanitizer's allocator does not hand freed addresses back soon")
    )
    func activitiesOfReusedAddressesStayApart() async throws {
        let clock = TestClock()
        let gate = Gate()
        let root = RootScope()
        root.provide(.testing(clock: clock))
        let newcomer = try #require(newcomerAtTheAddressOfAStuckModel(clock: clock, gate: gate, root: root))
        let screen = Behavior()
        screen.bind(newcomer)
        root.host(screen)

        // The dead model's operation still runs; it must not count among the newcomer's.
        await settleEffects(of: newcomer, timeout: patience)

        gate.open()
        screen.detach()
        await expectEffectsStopped(of: newcomer, timeout: patience)
    }

    /// Activates a model whose operation waits for `gate` and ignores cancellation, deactivates and drops it while
    /// that operation runs, and allocates models until one lands at its address. The allocator usually hands the
    /// freed block back at once; a few rounds make that near certain.
    private func newcomerAtTheAddressOfAStuckModel(clock: TestClock, gate: Gate, root: RootScope) -> GatedModel? {
        for _ in 0..<100 {
            let deadAddress: ObjectIdentifier
            do {
                let stuck = GatedModel(clock: clock, gate: gate)
                deadAddress = ObjectIdentifier(stuck)
                let screen = Behavior()
                screen.bind(stuck)
                root.host(screen)
                screen.detach()  // cancels the operation, which ignores it and waits for the gate
            }
            var keptAlive: [GatedModel] = []
            for _ in 0..<256 {
                let candidate = GatedModel(clock: clock, gate: nil)
                if ObjectIdentifier(candidate) == deadAddress { return candidate }
                keptAlive.append(candidate)
            }
        }
        return nil
    }

    /// Waits until `count` plain tasks sleep on `clock`. (Effects need no such loop: settleEffects(of:) waits for
    /// them.)
    private func waitUntilAsleep(_ clock: TestClock, count: Int) async {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while clock.sleeperCount < count {
            guard ContinuousClock.now < deadline else {
                Issue.record("only \(clock.sleeperCount) of \(count) tasks went to sleep on the clock")
                return
            }
            await Task.yield()
        }
    }
}

private final class FeedbackModel: ViewModel<Poll>, ScopedViewModel, @unchecked Sendable {
    let wait: AsyncStream<Int>

    init(wait: AsyncStream<Int>) {
        self.wait = wait
        super.init(initialState: Poll())
    }

    func didBecomeActive(_ activation: Activation<FeedbackModel>) {
        activation.effect(.when { $0.results.isEmpty }) { [wait] _ in
            for await _ in wait {}
            return ["done"]
        } reduce: { state, result in
            state.results = result.get()
        }
    }
}

/// Runs one effect whose operation sleeps in two child tasks at once, on the main actor or off it.
private final class TwinSleepModel: ViewModel<Poll>, ScopedViewModel, @unchecked Sendable {
    let clock: TestClock
    let onMainActor: Bool

    init(clock: TestClock, onMainActor: Bool) {
        self.clock = clock
        self.onMainActor = onMainActor
        super.init(initialState: Poll())
    }

    func didBecomeActive(_ activation: Activation<TwinSleepModel>) {
        activation.effect(.when { $0.ticks == 0 }) { [clock, onMainActor] _ in
            onMainActor ? try await Self.sleepTwiceOnMainActor(on: clock) : try await Self.sleepTwice(on: clock)
        } reduce: { state, result in
            state.ticks = (try? result.get()) ?? -1
        }
    }

    private static func sleepTwice(on clock: TestClock) async throws -> Int {
        async let first: Void = clock.sleep(for: .seconds(1))
        async let second: Void = clock.sleep(for: .seconds(2))
        _ = try await (first, second)
        return 3
    }

    @MainActor
    private static func sleepTwiceOnMainActor(on clock: TestClock) async throws -> Int {
        async let first: Void = clock.sleep(for: .seconds(1))
        async let second: Void = clock.sleep(for: .seconds(2))
        _ = try await (first, second)
        return 3
    }
}

/// Runs one effect: given a gate, an operation that waits for the gate and ignores cancellation, as one stuck in a
/// call that never checks for it would; otherwise one that sleeps on the clock.
private final class GatedModel: ViewModel<Poll>, ScopedViewModel, @unchecked Sendable {
    let clock: TestClock
    let gate: Gate?

    init(clock: TestClock, gate: Gate?) {
        self.clock = clock
        self.gate = gate
        super.init(initialState: Poll())
    }

    func didBecomeActive(_ activation: Activation<GatedModel>) {
        activation.effect(.when { $0.ticks == 0 }) { [clock, gate] _ in
            if let gate {
                await gate.wait()
            } else {
                try await clock.sleep(for: .seconds(1))
            }
            return 1
        } reduce: { state, result in
            state.ticks = (try? result.get()) ?? -1
        }
    }
}

/// Holds back whoever waits until it opens, cancelled or not.
private final class Gate: Sendable {
    /// `nil` once open.
    private let waiters = Locked<[CheckedContinuation<Void, Never>]?>([])

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = waiters.withLock { waiters -> Bool in
                guard waiters != nil else { return true }
                waiters?.append(continuation)
                return false
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiting = waiters.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for continuation in waiting { continuation.resume() }
    }
}
