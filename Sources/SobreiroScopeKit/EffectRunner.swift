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
    private struct Runs {
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

    private weak let model: ViewModel<State>?
    private let strategy: EffectStrategy
    /// How a write-back tells that its trigger is still current; `nil` under `continueOnNewState`, whose runs
    /// are independent of later states.
    private let freshness: EffectFreshness<State, Trigger>?
    private let operation: @Sendable (Trigger) async throws(Failure) -> Output
    private let reduce: @Sendable (inout State, Result<Output, Failure>) -> Void
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

    /// - Parameter origin: Where the effect was declared, for a test's tracker to name it.
    init(
        model: ViewModel<State>,
        origin: EffectOrigin,
        strategy: EffectStrategy,
        freshness: EffectFreshness<State, Trigger>,
        operation: @escaping @Sendable (Trigger) async throws(Failure) -> Output,
        reduce: @escaping @Sendable (inout State, Result<Output, Failure>) -> Void
    ) {
        self.model = model
        tracker = EffectHooks.installed?.tracker(for: model, origin: origin)
        self.strategy = strategy
        self.freshness = strategy == .cancelOnNewState ? freshness : nil
        self.operation = operation
        self.reduce = reduce
    }

    private func withRuns<R>(_ body: (inout Runs) -> R) -> R {
        lock.withLock { body(&runs) }
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
        let started = withRuns { runs -> (id: UInt64?, replaced: RunTasks, waiting: [Waiting]) in
            guard !runs.isEnded else { return (nil, RunTasks(), []) }
            var replaced = RunTasks()
            var waiting: [Waiting] = []
            if strategy == .cancelOnNewState {
                replaced = runs.wanted.removeAll()
                swap(&waiting, &runs.waiting)
            }
            defer { wantedCount.store(runs.wanted.count, ordering: .releasing) }
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

    private typealias Waiting = CheckedContinuation<Void, Never>

    private func start(_ trigger: Trigger, id: UInt64, stamp: UInt64) {
        let task: Task<Void, Never>
        if let tracker {
            // Under test: the tracker counts the operation, and its executor may count the jobs of its task and of
            // the child tasks it starts.
            task = tracker.startOperation { [self] in
                await perform(trigger)
            } finish: { [self] result in
                await writeBack(result, of: id, for: trigger, stamp: stamp)
            }
        } else {
            // `Task(executorPreference: nil)` would still cost an allocation more than `Task { }`.
            task = Task { [self] in await writeBack(await perform(trigger), of: id, for: trigger, stamp: stamp) }
        }
        let isWanted = withRuns { $0.wanted.setTask(task, of: id) }
        if !isWanted { task.cancel() }
    }

    private func perform(_ trigger: Trigger) async -> Result<Output, Failure> {
        do throws(Failure) {
            return .success(try await operation(trigger))
        } catch {
            return .failure(error)
        }
    }

    /// Writes `result` back if its run is still wanted and its trigger still current.
    ///
    /// Whether the trigger is current is decided in two steps, so that the effect's code runs outside the model's
    /// lock: first on a copy of the committed state, which gives the version the write-back requires; then, in
    /// the transaction, by comparing that version with the committed one. If a change committed in between, the
    /// first step is taken again on the newer state.
    ///
    /// A committed state that does not hold the run's value has not reached the effect yet, or the run would no
    /// longer be wanted. The write-back waits for it: when the effect hears of the new value, the run ends; if the
    /// value changes back before then, the effect hears a state with the run's value, and the run writes back.
    /// Dropping the run there instead would leave the state without an answer for good, since the effect heard
    /// no change and starts no new run.
    private func writeBack(
        _ result: Result<Output, Failure>,
        of id: UInt64,
        for trigger: Trigger,
        stamp: UInt64
    ) async {
        guard let model else { return }
        while true {
            // A run that is no longer wanted never is again: it needs no check, and no transaction.
            guard isWanted(id) else {
                forget(id)
                return
            }
            var required: UInt64?
            if let freshness {
                let heard = withRuns { $0.heard }
                switch freshness.verdict(of: model, for: trigger, stamp: stamp) {
                case .current(let version):
                    required = version
                case .waitForNextState:
                    await waitForNextState(of: id, after: heard)
                    continue
                case .never:
                    forget(id)
                    return
                }
            }
            do throws(Rollback) {
                try model.write { state throws(Rollback) in
                    if let required, model.committedVersion != required {
                        if freshness?.isRecheckedAfterChanges == true { throw .stateChanged }
                        forget(id)
                        throw .dropped
                    }
                    guard claim(id) else { throw .dropped }
                    reduce(&state, result)
                }
                withRuns { $0.committing -= 1 }
                return
            } catch {
                if error == .dropped { return }
            }
        }
    }

    /// Why a write-back transaction commits nothing. It rolls back rather than leave the state as it was, which
    /// commits a change when the state's `==` is not reflexive (a NaN field), and would then reach the effects.
    private enum Rollback: Error {
        /// The run's result is not written back.
        case dropped
        /// A change committed since the trigger was checked: check it again.
        case stateChanged
    }

    /// Returns once the effect has heard a state since it had heard `heard` states, or once the run `id` is no
    /// longer wanted.
    private func waitForNextState(of id: UInt64, after heard: UInt64) async {
        await withCheckedContinuation { (write: Waiting) in
            let waits = withRuns { runs in
                guard runs.heard == heard, runs.wanted.contains(id) else { return false }
                runs.waiting.append(write)
                return true
            }
            if !waits { write.resume() }
        }
    }

    private func isWanted(_ id: UInt64) -> Bool {
        withRuns { $0.wanted.contains(id) }
    }

    /// Forgets the run `id`, which is done or out of date.
    ///
    /// - Returns: Whether it was still wanted.
    @discardableResult
    private func forget(_ id: UInt64) -> Bool {
        withRuns { runs in
            defer { wantedCount.store(runs.wanted.count, ordering: .releasing) }
            return runs.wanted.remove(id)
        }
    }

    /// Claims the run `id` for the write-back transaction that calls it: the run is no longer wanted, and ``end()``
    /// waits for the transaction.
    ///
    /// - Returns: Whether the run was still wanted; if not, nothing is claimed.
    private func claim(_ id: UInt64) -> Bool {
        withRuns { runs in
            defer { wantedCount.store(runs.wanted.count, ordering: .releasing) }
            guard runs.wanted.remove(id) else { return false }
            runs.committing += 1
            return true
        }
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
