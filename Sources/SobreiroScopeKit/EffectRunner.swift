import Sobreiro
import SobreiroPrimitives
import Synchronization

/// Runs one effect of one activation: starts a run for each trigger, cancels the runs that a trigger replaces, and
/// writes each result back into the model unless the run stopped first. It performs what its ``EffectRuns``
/// decides, under its lock, and is the only engine of every form of effect.
///
/// A one-shot run (``receive(_:version:isMatch:)``) runs the operation and writes its result back once. A long run
/// (``startLong(_:)``), a poll or a sequence's fold, writes many times through a ``Writer`` until it is stopped.
///
/// Every write is a transaction that claims its run under the model's lock, if the run is still wanted. Stopping
/// runs, or ending the effect, unwants them and then, if a claimed write has not returned from its transaction,
/// waits for that transaction with one of its own; so once ``stop()`` or ``end()`` returns no stopped run writes:
/// a write either committed before, or finds its run unwanted. With no write under way, nothing waits.
///
/// Under ``EffectStrategy/cancelOnNewState`` a run also stops being wanted as soon as a newer state commits, not
/// only when that state reaches this effect: another subscriber may hold up the delivery for as long as it
/// renders. The runner's ``EffectFreshness`` names the version the committed state must still have, and the write
/// transaction compares versions only, so the check and the commit are one atomic step and no code of the effect
/// runs under the model's lock but `reduce`, the transaction's body.
///
/// Lock order: the model's lock, then the runner's. A write claims its run inside the model's transaction; no
/// other step holds the runner's lock while it takes another.
final class EffectRunner<State: ViewState, Trigger: Sendable, Output: Sendable, Failure: Error>: ActivationEffect,
    @unchecked Sendable
{
    typealias Waiting = CheckedContinuation<Void, Never>

    weak let model: ViewModel<State>?
    private let strategy: EffectStrategy
    /// How a write tells that its trigger is still current; ``EffectFreshness/anyState`` under
    /// `continueOnNewState`, whose runs are independent of later states.
    let freshness: EffectFreshness<State, Trigger>
    /// The one-shot runs' work; `nil` for a runner of long runs only.
    private let operation: (@Sendable (Trigger) async throws(Failure) -> Output)?
    /// Writes a one-shot run's outcome back; `nil` for an effect whose runs write nothing back.
    let reduce: (@Sendable (inout State, Result<Output, Failure>) -> Void)?
    /// Guards `runs` and `subscription`. Held inline rather than through a `Locked`, which would cost an object more
    /// per effect.
    private let lock = Lock()
    nonisolated(unsafe) private var runs = EffectRuns<Task<Void, Never>, Waiting>()
    /// The subscription that feeds this runner, ended with the effect.
    nonisolated(unsafe) private var subscription: StateSubscription?
    /// The number of wanted runs, readable without the lock; stored under it after every change.
    private let wantedCount = Atomic<Int>(0)
    /// The last trigger the subscription handed over, for an effect on a value to tell a new value from the same
    /// one. Only the subscription's calls touch it, and the model never runs two of them at once.
    nonisolated(unsafe) var lastTrigger: Trigger?
    /// What the runs report to: `nil` in apps, so that starting one costs no more than a `Task`.
    private let tracker: (any EffectTracker)?

    /// - Parameter tracker: What the runs report to, under test.
    init(
        model: ViewModel<State>,
        tracker: (any EffectTracker)?,
        strategy: EffectStrategy,
        freshness: EffectFreshness<State, Trigger>,
        operation: (@Sendable (Trigger) async throws(Failure) -> Output)?,
        reduce: (@Sendable (inout State, Result<Output, Failure>) -> Void)?
    ) {
        self.model = model
        self.tracker = tracker
        self.strategy = strategy
        self.freshness = strategy == .cancelOnNewState ? freshness : .anyState
        self.operation = operation
        self.reduce = reduce
    }

    /// Runs `step` on the runs under the runner's lock, then stores how many are wanted, for ``hasRunsToCancel``.
    private func step<R>(_ step: (inout EffectRuns<Task<Void, Never>, Waiting>) -> R) -> R {
        lock.withLock {
            defer { wantedCount.store(runs.wantedCount, ordering: .releasing) }
            return step(&runs)
        }
    }

    /// Cancels and resumes what a step asked for, once the lock is released.
    private func perform(_ actions: EffectRuns<Task<Void, Never>, Waiting>.Actions) {
        actions.cancelled.first?.cancel()
        for job in actions.cancelled.others { job.cancel() }
        // Their runs are no longer wanted: they find it out and return.
        for write in actions.resumed { write.resume() }
    }

    /// Keeps the subscription that feeds this runner, to end it with the effect; ends it at once if the effect
    /// has ended.
    func keep(_ subscription: StateSubscription) {
        let isEnded = lock.withLock {
            if !runs.isEnded { self.subscription = subscription }
            return runs.isEnded
        }
        if isEnded { subscription.cancel() }
    }

    /// Whether a state that does not match has anything to do here: cancel the running operations. Most states
    /// neither match nor find an operation to cancel; the subscription asks this before it hands the trigger
    /// over, so that they cost one atomic load and no copy of the trigger.
    var hasRunsToCancel: Bool {
        strategy == .cancelOnNewState && wantedCount.load(ordering: .acquiring) > 0
    }

    // MARK: One-shot runs

    /// Takes a new trigger, on the thread that delivers it: with ``EffectStrategy/cancelOnNewState`` it cancels
    /// the running operations, and if `isMatch` it starts one for `trigger`.
    ///
    /// - Parameter version: The version the model committed the state that `trigger` comes from at; the run's
    ///   stamp. A run for a state that has moved on already starts too: its result is dropped at write-back, and
    ///   the newer state, on its way to this effect, cancels it before then.
    func receive(_ trigger: Trigger, version: UInt64, isMatch: Bool) {
        guard isMatch || hasRunsToCancel else { return }
        let (run, actions) = step { $0.trigger(starts: isMatch, replaces: strategy == .cancelOnNewState) }
        perform(actions)
        guard let run, let operation else { return }
        let task: Task<Void, Never>
        if let tracker {
            // Under test: the tracker counts the operation, and its executor may count the jobs of its task and of
            // the child tasks it starts.
            task = tracker.startOperation { [self] in
                await outcome(of: operation, for: trigger, run: run)
            } finish: { [self] result in
                await writeBack(result, of: run, for: trigger, stamp: version)
            }
        } else {
            // `Task(executorPreference: nil)` would still cost an allocation more than `Task { }`.
            task = Task { [self] in
                await writeBack(
                    await outcome(of: operation, for: trigger, run: run), of: run, for: trigger, stamp: version)
            }
        }
        if !step({ $0.setJob(task, of: run) }) { task.cancel() }
    }

    /// Takes a state that gave the effect no new trigger (its value did not change), on the thread that delivers
    /// it: the write-backs waiting for a state check their value again.
    func hear() {
        for write in lock.withLock({ runs.hear() }) { write.resume() }
    }

    /// Runs the operation of `run`, unless that run was dropped before its task started.
    ///
    /// Between the run's start and its task's, cancelling the runs it replaces calls their cancellation handlers on
    /// this thread, and one of them may end the effect; or the effect ends on another thread before the task is
    /// scheduled. Such a run's task is cancelled, but a cancelled task still runs its body: checked here, the
    /// operation of a run that its effect no longer wants never begins.
    ///
    /// - Returns: The outcome of the operation, or `nil` if it did not run.
    private func outcome(
        of operation: @Sendable (Trigger) async throws(Failure) -> Output,
        for trigger: Trigger,
        run: UInt64
    ) async -> Result<Output, Failure>? {
        guard lock.withLock({ runs.isWanted(run) }) else { return nil }
        do throws(Failure) {
            return .success(try await operation(trigger))
        } catch {
            return .failure(error)
        }
    }

    /// Writes `result` back if its run is still wanted and its trigger still current, as the runner's
    /// ``EffectFreshness`` tells.
    ///
    /// A committed state that does not hold the run's value has not reached the effect yet, or the run would no
    /// longer be wanted. The write-back waits for it: when the effect hears of the new value, the run ends; if the
    /// value changes back before then, the effect hears a state with the run's value, and the run writes back.
    /// Dropping the run there instead would leave the state without an answer for good, since the effect heard
    /// no change and starts no new run.
    private func writeBack(
        _ result: Result<Output, Failure>?,
        of run: UInt64,
        for trigger: Trigger,
        stamp: UInt64
    ) async {
        // No result: the run was dropped before its operation began, and is no longer wanted.
        guard let result, let model else { return }
        guard let reduce else {
            // Nothing to write back: the run is done.
            _ = step { $0.forget(run) }
            return
        }
        while true {
            // A run that is no longer wanted never is again: it needs no check, and no transaction. The states
            // heard so far are read before the check, so that a wait below misses none heard after it.
            guard let heard = lock.withLock({ runs.isWanted(run) ? runs.heard : nil }) else { return }
            let outcome = freshness.write(into: model, for: trigger, stamp: stamp) {
                step { $0.claim(run, keeping: false) }
            } _: { state in
                reduce(&state, result)
            }
            switch outcome {
            case .written:
                lock.withLock { runs.committed() }
                return
            case .refused:
                return
            case .notHeld(let version) where version != stamp:
                await waitForNextState(of: run, after: heard)
            case .notHeld, .movedOn:
                // A value that does not hold even in the very state the run was given is not equal to itself (a
                // NaN): waiting for a state that holds it would never end, and writing it back would start another
                // run at once, since the value would count as changed again.
                _ = step { $0.forget(run) }
                return
            }
        }
    }

    /// Returns once the effect has heard a state since it had heard `heard` states, or once `run` is no longer
    /// wanted.
    private func waitForNextState(of run: UInt64, after heard: UInt64) async {
        await withCheckedContinuation { (write: Waiting) in
            if !lock.withLock({ runs.wait(write, of: run, after: heard) }) { write.resume() }
        }
    }

    // MARK: Long runs

    /// A runner of long runs only: a poll's or a sequence's, which write through a ``Writer``.
    convenience init(longRunsOf model: ViewModel<State>, tracker: (any EffectTracker)?)
    where Trigger == Void, Output == Void, Failure == Never {
        self.init(
            model: model, tracker: tracker, strategy: .cancelOnNewState, freshness: .anyState, operation: nil,
            reduce: nil)
    }

    /// Starts a long run of `body`, which writes through the ``Writer`` it is given, unless the effect has ended.
    /// The run it replaces, if any, is cancelled and its writes refused from now on; call ``stop()`` first where a
    /// write of it that is committing must have returned.
    func startLong(_ body: @escaping @Sendable (Writer) async -> Void) {
        let (run, actions) = step { $0.trigger(starts: true, replaces: true) }
        perform(actions)
        guard let run else { return }
        let writer = Writer(runner: self, run: run)
        // Its writes run inside the operation, between its waits: the run has no result to hand over.
        let task = tracker.map { $0.startOperation { await body(writer) } } ?? Task { await body(writer) }
        if !step({ $0.setJob(task, of: run) }) { task.cancel() }
    }

    /// What became of a long run's write.
    enum WriteOutcome {
        case written
        /// The run is current, but the committed state is not current for the write: nothing was written.
        case dropped
        /// The run was stopped, or the effect ended: the run should return.
        case stopped
    }

    /// What a long run writes through.
    struct Writer: Sendable {
        fileprivate let runner: EffectRunner
        fileprivate let run: UInt64

        /// Writes with `apply` inside a transaction, unless the run was stopped or the committed state is not
        /// current for `freshness`, such as ``EffectFreshness/holding(_:)`` a predicate.
        func write(holding freshness: EffectFreshness<State, Trigger>, _ apply: (inout State) -> Void) -> WriteOutcome
        where Trigger == Void {
            // A stopped run calls none of the effect's code again, its predicate included.
            guard let model = runner.model, runner.lock.withLock({ runner.runs.isWanted(run) }) else {
                return .stopped
            }
            // No stamp: a long run's freshness never asks for the state a run was given.
            let outcome = freshness.write(into: model, for: (), stamp: 0) {
                runner.step { $0.claim(run, keeping: true) }
            } _: { state in
                apply(&state)
            }
            switch outcome {
            case .written:
                runner.lock.withLock { runner.runs.committed() }
                return .written
            case .notHeld: return runner.lock.withLock { runner.runs.isWanted(run) } ? .dropped : .stopped
            case .refused, .movedOn: return .stopped
            }
        }

        /// Writes with `apply` inside a transaction, unless the run was stopped.
        ///
        /// - Returns: Whether it wrote; once `false`, the run should return.
        func write(_ apply: (inout State) -> Void) -> Bool where Trigger == Void {
            write(holding: .anyState, apply) == .written
        }

        /// Runs `body`, a wait for something other than a test clock that a test drives, such as the next element
        /// of a sequence, with the run counted as settled meanwhile.
        func waitIdle<T, WaitFailure: Error>(_ body: () async throws(WaitFailure) -> T) async throws(WaitFailure) -> T {
            guard let tracker = runner.tracker else { return try await body() }
            tracker.park()
            defer { tracker.unpark() }
            return try await body()
        }
    }

    // MARK: Stopping

    /// Stops every run: none writes from now on. Triggers from now on start new ones.
    func stop() {
        stop(ending: false)
    }

    /// Stops following the model and every run, and refuses new ones.
    func end() {
        let subscription = lock.withLock {
            defer { self.subscription = nil }
            return self.subscription
        }
        // Outside the lock: a cancel waits for a running call, which may take it.
        subscription?.cancel()
        stop(ending: true)
    }

    private func stop(ending: Bool) {
        let (actions, waitsForCommit) = step { $0.stop(ending: ending) }
        guard let model else { return perform(actions) }
        // A write that claimed its run before may still be in its transaction: wait until it has committed (unless
        // it runs on this thread, further up: its `reduce` stops the effect). Any other finds its run unwanted from
        // now on. No transaction of its own, which would commit a state whose `==` is not reflexive.
        if waitsForCommit { model.orderedWithTransactions {} }
        // Cancelling a task runs its cancellation handlers, user code. Inside a transaction of the model on this
        // thread (an input cancelled from a `reduce`, a model detached in its own write), that waits until the
        // transaction unlocks; the runner, and what it holds, lives until then too.
        guard model.runsTransactionOnThisThread else { return perform(actions) }
        model.releaseAfterTransaction(AfterUnlock { [self] in perform(actions) })
    }

    /// Work that the model's transaction keeps until it has unlocked: it runs as the transaction lets go of it.
    private final class AfterUnlock {
        let work: () -> Void

        init(_ work: @escaping () -> Void) { self.work = work }

        deinit { work() }
    }
}

/// A runner of long runs only.
typealias LongRuns<State: ViewState> = EffectRunner<State, Void, Void, Never>

/// When the result of an effect's run may still be written into the model, and the one write that checks it:
/// shared by the one-shot write-backs and the long runs' writes of ``EffectRunner``.
///
/// The decision ends in the write transaction, where it and the commit are one atomic step; but only versions are
/// compared there. The effect's own code (a predicate, the value closure, `Value ==`) runs before, outside the
/// model's lock, on a copy of the state, and the transaction checks that no change committed since that copy.
enum EffectFreshness<State: ViewState, Trigger: Sendable>: Sendable {
    /// For a run whose result is written whatever happened since it started: no check.
    case anyState
    /// For a state that matches a predicate: current while no change has committed since the state the run was
    /// given. The run is stamped with the version the model delivered that state at, so no state is compared:
    /// a state's `==` may be costly, or not even reflexive (a `Double` field that is NaN).
    case unchangedState
    /// For a value of the state: current while the committed state holds the value the run was given, as `holds`
    /// tells. Other changes of the state leave the run current. The effect's own subscription replaces the run
    /// once it hears of a newer value, so a value that changes and changes back before then counts as unchanged.
    case unchangedValue(holds: @Sendable (State, Trigger) -> Bool)

    /// What became of a write.
    enum Outcome: Equatable {
        case written
        /// The writer's own check, under the model's lock, refused it: nothing was written.
        case refused
        /// The committed state does not hold the run's value: nothing was written. `version` is the version of the
        /// copy that was checked.
        case notHeld(version: UInt64)
        /// A change committed since the state the run was given: nothing was written, nor ever will be.
        case movedOn
    }

    /// Writes with `apply`, inside a transaction of `model`, if the committed state is still current for a run
    /// given `trigger` at version `stamp`, and `admit` lets it.
    ///
    /// Whether the state is current is decided in two steps, so that the effect's code runs outside the model's
    /// lock: first on a copy of the committed state, which gives the version the write requires; then, in the
    /// transaction, by comparing that version with the committed one. If a value's change committed in between,
    /// the first step is taken again on the newer state.
    ///
    /// - Parameters:
    ///   - admit: The writer's own check, called in the transaction, under the model's lock, once the state is
    ///     found current; it may claim the write. It must not run user code.
    ///   - apply: Writes into the state, once admitted.
    func write(
        into model: ViewModel<State>,
        for trigger: Trigger,
        stamp: UInt64,
        admit: () -> Bool,
        _ apply: (inout State) -> Void
    ) -> Outcome {
        while true {
            let required: UInt64?
            switch self {
            case .anyState:
                required = nil
            case .unchangedState:
                required = stamp
            case .unchangedValue(let holds):
                let committed = model.versionedState
                guard holds(committed.state, trigger) else { return .notHeld(version: committed.version) }
                required = committed.version
            }
            do throws(Rollback) {
                try model.write { state throws(Rollback) in
                    if let required, model.committedVersion != required {
                        throw isRecheckedAfterChanges ? .stateChanged : .movedOn
                    }
                    guard admit() else { throw .refused }
                    apply(&state.whole)
                }
                return .written
            } catch {
                switch error {
                case .stateChanged: continue
                case .movedOn: return .movedOn
                case .refused: return .refused
                }
            }
        }
    }

    /// Why a write transaction commits nothing. It rolls back rather than leave the state as it was, which
    /// commits a change when the state's `==` is not reflexive (a NaN field), and would then reach the effects.
    private enum Rollback: Error {
        case refused
        case movedOn
        /// A change committed since the state was checked: check it again.
        case stateChanged
    }

    /// Whether a version found committed in the write transaction, other than the required one, may still let
    /// the run write once checked again: only a value may be unchanged across other changes.
    private var isRecheckedAfterChanges: Bool {
        switch self {
        case .anyState, .unchangedState: false
        case .unchangedValue: true
        }
    }
}

extension EffectFreshness where Trigger: Equatable {
    /// For a value of the state, derived by `value`: see ``unchangedValue(holds:)``.
    static func unchangedValue(of value: @escaping @Sendable (State) -> Trigger) -> Self {
        .unchangedValue { state, trigger in value(state) == trigger }
    }
}

extension EffectFreshness where Trigger == Void {
    /// For a long-lived effect's writes: current while the committed state holds `predicate`, or always if it is
    /// `nil`.
    static func holding(_ predicate: (@Sendable (State) -> Bool)?) -> Self {
        guard let predicate else { return .anyState }
        return .unchangedValue { state, _ in predicate(state) }
    }
}
