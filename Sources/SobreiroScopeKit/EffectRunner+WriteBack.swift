import Sobreiro

extension EffectRunner {
    /// Writes `result` back if its run is still wanted and its trigger still current, as the runner's
    /// ``EffectFreshness`` tells.
    ///
    /// A committed state that does not hold the run's value has not reached the effect yet, or the run would no
    /// longer be wanted. The write-back waits for it: when the effect hears of the new value, the run ends; if the
    /// value changes back before then, the effect hears a state with the run's value, and the run writes back.
    /// Dropping the run there instead would leave the state without an answer for good, since the effect heard
    /// no change and starts no new run.
    func writeBack(
        _ result: Result<Output, Failure>?,
        of id: UInt64,
        for trigger: Trigger,
        stamp: UInt64
    ) async {
        // No result: the run was dropped before its operation began, and is no longer wanted.
        guard let result, let model else { return }
        guard let reduce else {
            // Nothing to write back: the run is done.
            forget(id)
            return
        }
        while true {
            // A run that is no longer wanted never is again: it needs no check, and no transaction. The states
            // heard so far are read before the check, so that a wait below misses none heard after it.
            guard let heard = withRuns({ $0.wanted.contains(id) ? $0.heard : nil }) else { return }
            let outcome = freshness.write(into: model, for: trigger, stamp: stamp, admit: { claim(id) }) { state in
                reduce(&state, result)
            }
            switch outcome {
            case .written:
                withRuns { $0.committing -= 1 }
                return
            case .refused:
                return
            case .notHeld(let version) where version != stamp:
                await waitForNextState(of: id, after: heard)
            case .notHeld, .movedOn:
                // A value that does not hold even in the very state the run was given is not equal to itself (a
                // NaN): waiting for a state that holds it would never end, and writing it back would start another
                // run at once, since the value would count as changed again.
                forget(id)
                return
            }
        }
    }

    /// Forgets the run `id`, which is done or out of date.
    ///
    /// - Returns: Whether it was still wanted.
    @discardableResult
    private func forget(_ id: UInt64) -> Bool {
        changingWanted { runs in
            return runs.wanted.remove(id)
        }
    }

    /// Claims the run `id` for the write-back transaction that calls it: the run is no longer wanted, and ``end()``
    /// waits for the transaction.
    ///
    /// - Returns: Whether the run was still wanted; if not, nothing is claimed.
    private func claim(_ id: UInt64) -> Bool {
        changingWanted { runs in
            guard runs.wanted.remove(id) else { return false }
            runs.committing += 1
            return true
        }
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
}
