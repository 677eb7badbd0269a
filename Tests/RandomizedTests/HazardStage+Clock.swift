import Dispatch
import Foundation
import SobreiroTesting
import Synchronization

/// Tasks that go to sleep on a `TestClock` while they are cancelled: some exactly between the sleep's
/// cancellation check and its listing as a sleeper (the clock's test hook cancels them there), the others by the
/// driver after a different number of spins each, so that those cancellations sweep the moments around it.
///
/// Oracle: a cancelled task returns with the clock never advanced, and leaves no sleeper behind.
final class ClockStage: HazardStage {
    let findings: Findings
    let clock = TestClock()
    /// A clock whose every sleep is cancelled inside the window between its check and its listing.
    let windowClock = TestClock()

    init(findings: Findings) {
        self.findings = findings
        windowClock.willListSleeper = { withUnsafeCurrentTask { $0?.cancel() } }
    }

    func apply(_ hazard: Hazard) {
        guard case .sleepAndCancel(let sleepers, let spin) = hazard else {
            preconditionFailure("not a clock hazard: \(hazard)")
        }
        let finished = Counter()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<sleepers {
            let clock = (spin + index) % 4 == 0 ? windowClock : clock
            let task = Task.detached {
                try? await clock.sleep(until: clock.now.advanced(by: .seconds(60)), tolerance: nil)
                finished.increment()
            }
            // Each cancellation lands a little later than the one before, around the task's first steps.
            var spins = ((spin + index * 37) % 400) * 250
            while spins > 0 {
                spins -= 1
                _ = finished.value
            }
            task.cancel()
            tasks.append(task)
        }
        // Generous: with every suite running at once, two cores may take seconds to run the tasks.
        if !waitUntil({ finished.value == sleepers }) {
            let stuck = sleepers - finished.value
            findings.record(
                "\(stuck) of \(sleepers) tasks cancelled as they went to sleep on the TestClock stayed asleep "
                    + "(\(clock.sleeperCount + windowClock.sleeperCount) sleeper(s) left) until the clock would advance"
            )
        }
    }

    func finish() {}
}
