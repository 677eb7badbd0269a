/// The runs of one effect, and every decision about them: which runs are wanted, which a trigger replaces, which
/// may write, and what ending or stopping the effect must wait for.
///
/// A pure state machine, with no lock, no task and no thread of its own: ``EffectRunner`` keeps it under its lock
/// and performs what each step returns, once the lock is released (cancelling jobs, resuming waiters, waiting for a
/// transaction). `Job` is what a run's work is cancelled through, a task in the runner; `Waiter` is a write-back
/// that waits for the effect to hear another state.
///
/// A run is wanted from the trigger that starts it until it writes back, is replaced, or the effect stops. A
/// one-shot run writes once: claiming its write makes it unwanted. A long run, such as a poll or a sequence's
/// fold, writes many times: each write claims it without ending it. Either way a claimed write counts as
/// committing until its transaction returns, and stopping the effect while one commits must wait for it.
package struct EffectRuns<Job, Waiter> {
    /// Whether the effect has ended: no run starts any more.
    package private(set) var isEnded = false
    private var lastID: UInt64 = 0
    /// The first wanted run, held inline: most effects have at most one at a time, and starting and ending it then
    /// allocates nothing.
    private var first: (id: UInt64, job: Job?)?
    /// The other wanted runs, under their ids; a run's job is `nil` until it is known.
    private var others: [UInt64: Job?] = [:]
    /// How many states the effect has heard that gave it no new trigger: a write-back waiting for its value to hold
    /// again waits for this to move.
    package private(set) var heard: UInt64 = 0
    private var waiting: [Waiter] = []
    /// The claimed writes whose transaction has not returned.
    package private(set) var committing = 0

    /// Creates the runs of an effect that has started none.
    package init() {}

    /// The number of wanted runs.
    package var wantedCount: Int { (first == nil ? 0 : 1) + others.count }

    /// Whether the run `id` is wanted.
    package func isWanted(_ id: UInt64) -> Bool {
        first?.id == id || others[id] != nil
    }

    /// What a step asks the runner to do once its lock is released.
    package struct Actions {
        /// The jobs of the runs that are no longer wanted, to cancel.
        package var cancelled = Jobs()
        /// The write-backs that waited for a state, to resume: their runs may have ended.
        package var resumed: [Waiter] = []
    }

    /// Jobs to cancel; the first held inline.
    package struct Jobs {
        package var first: Job?
        package var others: [Job] = []
    }

    /// A trigger arrives: if `replaces`, it ends every wanted run; if `starts`, it starts a run.
    ///
    /// - Returns: The id of the run it started, if any, and what to do for the runs it replaced.
    package mutating func trigger(starts: Bool, replaces: Bool) -> (run: UInt64?, actions: Actions) {
        guard !isEnded else { return (nil, Actions()) }
        var actions = Actions()
        if replaces { actions = unwantAll() }
        guard starts else { return (nil, actions) }
        lastID &+= 1
        if first == nil {
            first = (lastID, nil)
        } else {
            others[lastID] = .some(nil)
        }
        return (lastID, actions)
    }

    /// Gives the run `id` its job.
    ///
    /// - Returns: Whether the run is still wanted; if not, the caller cancels the job.
    package mutating func setJob(_ job: Job, of id: UInt64) -> Bool {
        if first?.id == id {
            first?.job = job
            return true
        }
        guard others[id] != nil else { return false }
        others[id] = .some(job)
        return true
    }

    /// Claims a write of the run `id`, in its transaction: it counts as committing until ``committed()``. A one-shot
    /// run is no longer wanted from now on; a long run (`keeping`) stays wanted for its next writes.
    ///
    /// - Returns: Whether the run was wanted; if not, nothing is claimed and the write must not happen.
    package mutating func claim(_ id: UInt64, keeping: Bool) -> Bool {
        guard keeping ? isWanted(id) : forget(id) else { return false }
        committing += 1
        return true
    }

    /// A claimed write's transaction has returned.
    package mutating func committed() {
        committing -= 1
    }

    /// Makes the run `id` unwanted: it is done, or out of date.
    ///
    /// - Returns: Whether it was wanted.
    @discardableResult
    package mutating func forget(_ id: UInt64) -> Bool {
        if first?.id == id {
            first = nil
            return true
        }
        return others.removeValue(forKey: id) != nil
    }

    /// The effect heard a state that gave it no new trigger.
    ///
    /// - Returns: The write-backs to resume, which check their value again.
    package mutating func hear() -> [Waiter] {
        heard &+= 1
        return takeWaiting()
    }

    /// A write-back of the run `id`, which found its value not held after the effect had heard `heard` states,
    /// waits for the next state the effect hears.
    ///
    /// - Returns: Whether it waits; if not (the effect heard a state since, or the run is no longer wanted), the
    ///   caller resumes it at once.
    package mutating func wait(_ waiter: Waiter, of id: UInt64, after heard: UInt64) -> Bool {
        guard self.heard == heard, isWanted(id) else { return false }
        waiting.append(waiter)
        return true
    }

    /// Stops every wanted run, and with `ending`, refuses new ones for good.
    ///
    /// - Returns: What to do for the runs stopped, and whether a claimed write may still be committing: the caller
    ///   then waits for the model's transactions before it returns, so that no write of a stopped run lands after.
    package mutating func stop(ending: Bool) -> (actions: Actions, waitsForCommit: Bool) {
        if ending { isEnded = true }
        return (unwantAll(), committing > 0)
    }

    private mutating func unwantAll() -> Actions {
        var actions = Actions()
        actions.resumed = takeWaiting()
        guard first != nil || !others.isEmpty else { return actions }
        actions.cancelled.first = first?.job ?? nil
        actions.cancelled.others = others.values.compactMap { $0 }
        first = nil
        others = [:]
        return actions
    }

    private mutating func takeWaiting() -> [Waiter] {
        var taken: [Waiter] = []
        swap(&taken, &waiting)
        return taken
    }
}
