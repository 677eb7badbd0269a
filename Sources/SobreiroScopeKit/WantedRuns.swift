/// The runs of one effect whose results may still be written back, each with its task once it is known.
///
/// Most effects have at most one run at a time: the first is held inline, so that starting a run and ending it
/// allocate nothing here; runs started while it is still wanted go to a dictionary.
struct WantedRuns {
    private struct Run {
        let id: UInt64
        var task: Task<Void, Never>?
    }

    private var first: Run?
    /// The other wanted runs, under their ids; a run's task is `nil` until it is known.
    private var others: [UInt64: Task<Void, Never>?] = [:]

    /// The number of wanted runs.
    var count: Int { (first == nil ? 0 : 1) + others.count }

    /// Whether the run `id` is wanted.
    func contains(_ id: UInt64) -> Bool {
        first?.id == id || others[id] != nil
    }

    /// Makes the run `id` wanted, with no task yet.
    mutating func insert(_ id: UInt64) {
        if first == nil {
            first = Run(id: id)
        } else {
            others[id] = .some(nil)
        }
    }

    /// Gives the run `id` its task, if it is still wanted.
    ///
    /// - Returns: Whether the run is wanted.
    mutating func setTask(_ task: Task<Void, Never>, of id: UInt64) -> Bool {
        if first?.id == id {
            first?.task = task
            return true
        }
        guard others[id] != nil else { return false }
        others[id] = .some(task)
        return true
    }

    /// Makes the run `id` unwanted.
    ///
    /// - Returns: Whether it was wanted.
    mutating func remove(_ id: UInt64) -> Bool {
        if first?.id == id {
            first = nil
            return true
        }
        return others.removeValue(forKey: id) != nil
    }

    /// Makes every run unwanted, and returns the tasks known for them, to cancel once the lock is released.
    mutating func removeAll() -> RunTasks {
        guard first != nil || !others.isEmpty else { return RunTasks() }
        let tasks = RunTasks(first: first?.task, others: others.values.compactMap { $0 })
        first = nil
        others = [:]
        return tasks
    }
}

/// Tasks of runs that are no longer wanted; the first held inline, as in ``WantedRuns``.
struct RunTasks {
    var first: Task<Void, Never>?
    var others: [Task<Void, Never>] = []

    /// Cancels every task.
    func cancel() {
        first?.cancel()
        for task in others { task.cancel() }
    }
}
