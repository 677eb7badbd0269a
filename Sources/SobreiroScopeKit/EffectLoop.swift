import Sobreiro
import SobreiroPrimitives

/// Runs one long-lived effect of one activation, a stream or a poller: a task that writes into the model many
/// times, until it is stopped or the effect ends.
///
/// Each write is a transaction that first checks, under the model's lock, that its run is still the current one,
/// and, for a poller, that no change committed since the state its predicate was checked on.
/// Stopping a run, or ending the effect, moves the current run on inside a transaction too, so once ``stop()`` or
/// ``end()`` returns, the run it replaced writes nothing more: a write either committed before, or finds itself
/// out of date. The task reports to the model's ``EffectTracker`` as an effect operation does, so settling awaits
/// it; in apps, which have no tracker, it is a plain task.
final class EffectLoop<State: ViewState>: ActivationEffect {
    private struct Runs {
        var isEnded = false
        /// The current run; a write of any other one is refused.
        var current: UInt64 = 0
        var task: Task<Void, Never>?
    }

    private weak let model: ViewModel<State>?
    /// What the runs report to: `nil` in apps.
    private let tracker: (any EffectTracker)?
    private let runs = Locked(Runs())

    init(model: ViewModel<State>, tracker: (any EffectTracker)?) {
        self.model = model
        self.tracker = tracker
    }

    /// Starts a run of `body`, which writes through the ``Writer`` it is given, unless the effect has ended.
    ///
    /// The run it replaces, if any, is cancelled and its writes refused from now on; one of its writes may still be
    /// committing. Call ``stop()`` first where that matters.
    func start(_ body: @escaping @Sendable (Writer) async -> Void) {
        let next = runs.withLock { runs -> (run: UInt64, replaced: Task<Void, Never>?)? in
            guard !runs.isEnded else { return nil }
            runs.current &+= 1
            defer { runs.task = nil }
            return (runs.current, runs.task)
        }
        guard let (run, replaced) = next else { return }
        replaced?.cancel()
        let writer = Writer(loop: self, run: run)
        let task: Task<Void, Never>
        if let tracker {
            // Its writes run inside the operation, between its waits: the run has no result to hand over.
            task = tracker.startOperation { await body(writer) }
        } else {
            task = Task { await body(writer) }
        }
        let isCurrent = runs.withLock { runs in
            guard runs.current == run, !runs.isEnded else { return false }
            runs.task = task
            return true
        }
        if !isCurrent { task.cancel() }
    }

    /// Runs `body`, a wait for something other than a test clock that a test drives, such as the next element of
    /// a stream, with the run counted as settled meanwhile.
    func waitIdle<T, Failure: Error>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        guard let tracker else { return try await body() }
        tracker.park()
        defer { tracker.unpark() }
        return try await body()
    }

    /// What became of a write.
    enum WriteOutcome {
        case written
        /// The run is current, but the committed state is not current for the write: nothing was written.
        case dropped
        /// The run was stopped, or the effect ended: the run should return.
        case stopped
    }

    /// Writes with `apply`, inside a transaction, if `run` is still the current one and the committed state is
    /// current for `freshness`.
    ///
    /// A state that no longer holds a poller's predicate may have committed without reaching the loop's
    /// subscription yet: another subscriber can hold up its delivery for as long as it renders. So the predicate
    /// is checked on a copy of the committed state, and the transaction only checks that no change committed
    /// since that copy, as ``EffectFreshness/write(into:for:stamp:admit:_:)`` does for every effect.
    fileprivate func write(
        _ run: UInt64,
        holding freshness: EffectFreshness<State, Void>,
        _ apply: (inout State) -> Void
    ) -> WriteOutcome {
        guard let model else { return .stopped }
        // No stamp: a loop's freshness never asks for the state a run was given.
        switch freshness.write(into: model, for: (), stamp: 0, admit: { isCurrent(run) }, apply) {
        case .written: return .written
        case .notHeld: return isCurrent(run) ? .dropped : .stopped
        case .refused, .movedOn: return .stopped
        }
    }

    private func isCurrent(_ run: UInt64) -> Bool {
        runs.withLock { !$0.isEnded && $0.current == run }
    }

    /// Cancels the current run: it writes nothing from now on.
    func stop() {
        replaceRun(ending: false)
    }

    /// Cancels the current run and refuses new ones.
    func end() {
        replaceRun(ending: true)
    }

    private func replaceRun(ending: Bool) {
        let replace = { [self] in
            runs.withLock { runs -> Task<Void, Never>? in
                runs.isEnded = runs.isEnded || ending
                runs.current &+= 1
                defer { runs.task = nil }
                return runs.task
            }
        }
        // In order with the model's transactions, so that a write on another thread either commits first or finds
        // its run replaced; without a transaction of its own, which would nest in one that this thread runs (a
        // model detached from its own write) and commit a state whose `==` is not reflexive.
        let task = model.map { model in model.orderedWithTransactions(replace) } ?? replace()
        task?.cancel()
    }

    /// What a run writes through.
    struct Writer: Sendable {
        fileprivate let loop: EffectLoop
        fileprivate let run: UInt64

        /// Writes with `apply` inside a transaction, unless the run was stopped.
        ///
        /// - Returns: Whether it wrote; once `false`, the run should return.
        func write(_ apply: (inout State) -> Void) -> Bool {
            loop.write(run, holding: .anyState, apply) == .written
        }

        /// Writes with `apply` inside a transaction, unless the run was stopped or the committed state is not
        /// current for `freshness`, such as ``EffectFreshness/holding(_:)`` a predicate.
        func write(holding freshness: EffectFreshness<State, Void>, _ apply: (inout State) -> Void) -> WriteOutcome {
            loop.write(run, holding: freshness, apply)
        }
    }
}
