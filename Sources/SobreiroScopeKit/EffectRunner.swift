import Sobreiro
import SobreiroPrimitives
import Synchronization

/// Runs one effect of one activation: starts an operation for each trigger, cancels the ones the strategy
/// replaces, and writes each result back into the model unless the effect ended first.
///
/// A result is written back inside a transaction that claims its run, under the model's lock, if it is still
/// wanted. Ending the effect clears the wanted runs and then, if a write-back has claimed its run and not returned
/// from its transaction, waits for that transaction with one of its own; so once ``end()`` returns no result can
/// be written back: a write-back either committed before, or finds its run unwanted. An effect with no write-back
/// under way ends without a transaction.
///
/// Under ``EffectStrategy/cancelOnNewState`` a run also stops being wanted as soon as a newer state commits, not
/// only when that state reaches this effect: another subscriber may hold up the delivery for as long as it
/// renders. The runner's ``EffectFreshness`` names the version the committed state must still have, and the
/// write-back transaction compares versions only, so the check and the commit are one atomic step and no code of
/// the effect runs under the model's lock but `reduce`, the transaction's body.
final class EffectRunner<State: ViewState, Trigger: Sendable, Output: Sendable, Failure: Error>: ActivationEffect,
    @unchecked Sendable
{
    struct Runs {
        var isEnded = false
        var nextID: UInt64 = 0
        /// The runs whose results may still be written back, with their tasks once they are known.
        var wanted = WantedRuns()
        /// How many states the effect has heard that gave it no new trigger; see ``waitForNextState(of:after:)``.
        var heard: UInt64 = 0
        /// Write-backs waiting for the effect to hear another state.
        var waiting: [CheckedContinuation<Void, Never>] = []
        /// The subscription that feeds this runner, ended with the effect.
        var subscription: StateSubscription?
        /// The write-backs that claimed their run in their transaction and have not returned from it.
        var committing = 0
    }

    weak let model: ViewModel<State>?
    private let strategy: EffectStrategy
    /// How a write-back tells that its trigger is still current; ``EffectFreshness/anyState`` under
    /// `continueOnNewState`, whose runs are independent of later states.
    let freshness: EffectFreshness<State, Trigger>
    private let operation: @Sendable (Trigger) async throws(Failure) -> Output
    /// Writes a run's outcome back; `nil` for an effect whose runs write nothing back.
    let reduce: (@Sendable (inout State, Result<Output, Failure>) -> Void)?
    /// Guards `runs`. Held inline rather than through a `Locked`, which would cost an object more per effect.
    private let lock = Lock()
    nonisolated(unsafe) private var runs = Runs()
    /// The number of runs in `runs.wanted`, readable without the lock; stored under it after every change.
    private let wantedCount = Atomic<Int>(0)
    /// The last trigger the subscription handed over, for an effect on a value to tell a new value from the same
    /// one. Only the subscription's calls touch it, and the model never runs two of them at once.
    nonisolated(unsafe) var lastTrigger: Trigger?
    /// What the operations report to: `nil` in apps, so that starting one costs no more than a `Task`.
    private let tracker: (any EffectTracker)?

    /// - Parameter tracker: What the operations report to, under test.
    init(
        model: ViewModel<State>,
        tracker: (any EffectTracker)?,
        strategy: EffectStrategy,
        freshness: EffectFreshness<State, Trigger>,
        operation: @escaping @Sendable (Trigger) async throws(Failure) -> Output,
        reduce: (@Sendable (inout State, Result<Output, Failure>) -> Void)?
    ) {
        self.model = model
        self.tracker = tracker
        self.strategy = strategy
        self.freshness = strategy == .cancelOnNewState ? freshness : .anyState
        self.operation = operation
        self.reduce = reduce
    }

    /// Runs `body` on the runs, under the runner's lock.
    func withRuns<R>(_ body: (inout Runs) -> R) -> R {
        lock.withLock { body(&runs) }
    }

    /// Runs `body` on the runs, under the runner's lock, and then stores how many are wanted, for
    /// ``hasRunsToCancel``.
    func changingWanted<R>(_ body: (inout Runs) -> R) -> R {
        lock.withLock {
            defer { wantedCount.store(runs.wanted.count, ordering: .releasing) }
            return body(&runs)
        }
    }

    /// Keeps the subscription that feeds this runner, to end it with the effect; ends it at once if the effect
    /// has ended.
    func keep(_ subscription: StateSubscription) {
        let isEnded = withRuns { runs in
            if !runs.isEnded { runs.subscription = subscription }
            return runs.isEnded
        }
        if isEnded { subscription.cancel() }
    }

    /// Takes a new trigger, on the thread that delivers it: with ``EffectStrategy/cancelOnNewState`` it cancels
    /// the running operations, and if `isMatch` it starts one for `trigger`.
    ///
    /// - Parameter version: The version the model committed the state that `trigger` comes from at; the run's
    ///   stamp. A run for a state that has moved on already starts too: its result is dropped at write-back, and
    ///   the newer state, on its way to this effect, cancels it before then.
    func receive(_ trigger: Trigger, version: UInt64, isMatch: Bool) {
        guard isMatch || hasRunsToCancel else { return }
        let started = changingWanted { runs -> (id: UInt64?, replaced: RunTasks, waiting: [Waiting]) in
            guard !runs.isEnded else { return (nil, RunTasks(), []) }
            var replaced = RunTasks()
            var waiting: [Waiting] = []
            if strategy == .cancelOnNewState {
                replaced = runs.wanted.removeAll()
                swap(&waiting, &runs.waiting)
            }
            guard isMatch else { return (nil, replaced, waiting) }
            runs.nextID &+= 1
            runs.wanted.insert(runs.nextID)
            return (runs.nextID, replaced, waiting)
        }
        started.replaced.cancel()
        // Their runs are no longer wanted: they find it out and return.
        for write in started.waiting { write.resume() }
        if let id = started.id { start(trigger, id: id, stamp: version) }
    }

    /// Whether a state that does not match has anything to do here: cancel the running operations. Most states
    /// neither match nor find an operation to cancel; the subscription asks this before it hands the trigger
    /// over, so that they cost one atomic load and no copy of the trigger.
    var hasRunsToCancel: Bool {
        strategy == .cancelOnNewState && wantedCount.load(ordering: .acquiring) > 0
    }

    /// Takes a state that gave the effect no new trigger (its value did not change), on the thread that delivers
    /// it: the write-backs waiting for a state check their value again.
    func hear() {
        let waiting = withRuns { runs in
            runs.heard &+= 1
            var waiting: [Waiting] = []
            swap(&waiting, &runs.waiting)
            return waiting
        }
        for write in waiting { write.resume() }
    }

    typealias Waiting = CheckedContinuation<Void, Never>

    private func start(_ trigger: Trigger, id: UInt64, stamp: UInt64) {
        let task: Task<Void, Never>
        if let tracker {
            // Under test: the tracker counts the operation, and its executor may count the jobs of its task and of
            // the child tasks it starts.
            task = tracker.startOperation { [self] in
                await perform(trigger, of: id)
            } finish: { [self] result in
                await writeBack(result, of: id, for: trigger, stamp: stamp)
            }
        } else {
            // `Task(executorPreference: nil)` would still cost an allocation more than `Task { }`.
            task = Task { [self] in await writeBack(await perform(trigger, of: id), of: id, for: trigger, stamp: stamp)
            }
        }
        let isWanted = withRuns { $0.wanted.setTask(task, of: id) }
        if !isWanted { task.cancel() }
    }

    /// Runs the operation of the run `id`, unless that run was dropped before its task started.
    ///
    /// Between the run's recording and its task's start, cancelling the runs it replaces calls their cancellation
    /// handlers on this thread, and one of them may end the effect; or the effect ends on another thread before the
    /// task is scheduled. Such a run's task is cancelled, but a cancelled task still runs its body: checked here,
    /// the operation of a run that its effect no longer wants never begins.
    ///
    /// - Returns: The outcome of the operation, or `nil` if it did not run.
    private func perform(_ trigger: Trigger, of id: UInt64) async -> Result<Output, Failure>? {
        guard isWanted(id) else { return nil }
        do throws(Failure) {
            return .success(try await operation(trigger))
        } catch {
            return .failure(error)
        }
    }

    private func isWanted(_ id: UInt64) -> Bool {
        withRuns { $0.wanted.contains(id) }
    }

    /// Stops following the model, cancels the running operations and drops their results.
    func end() {
        let subscription = withRuns { runs in
            defer { runs.subscription = nil }
            return runs.subscription
        }
        // Outside the lock: a cancel waits for a running call, which may take it.
        subscription?.cancel()
        let (running, waiting, isCommitting) = withRuns { runs in
            runs.isEnded = true
            wantedCount.store(0, ordering: .releasing)
            defer { runs.waiting.removeAll() }
            return (runs.wanted.removeAll(), runs.waiting, runs.committing > 0)
        }
        // A write-back that claimed its run before may still be in its transaction: wait until it has committed
        // (unless it runs on this thread, further up: its `reduce` ends the effect). Any other finds its run
        // unwanted from now on. No transaction of its own, which would commit a state whose `==` is not reflexive.
        if isCommitting, let model { model.orderedWithTransactions {} }
        running.cancel()
        for write in waiting { write.resume() }
    }
}
