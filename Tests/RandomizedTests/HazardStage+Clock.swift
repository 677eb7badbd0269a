import Dispatch
import Foundation
import SobreiroTesting
import Synchronization

/// Tasks that go to sleep on a `TestClock` while the driver cancels them, each after a different number of
/// spins, so that the cancellations sweep the moments around the sleeper's registration.
///
/// This is the one hazard that no gate can order: the window lies between two statements of
/// `TestClock.sleep`, with no user code in between. It is swept instead, hundreds of times per seed.
///
/// Oracle: a cancelled task returns within 2 s, with the clock never advanced, and leaves no sleeper behind.
final class ClockStage: HazardStage {
    let findings: Findings
    let clock = TestClock()

    init(findings: Findings) {
        self.findings = findings
    }

    func apply(_ hazard: Hazard) {
        guard case .sleepAndCancel(let sleepers, let spin) = hazard else {
            preconditionFailure("not a clock hazard: \(hazard)")
        }
        let clock = clock
        let finished = Counter()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<sleepers {
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
        if !waitUntil({ finished.value == sleepers }) {
            let stuck = sleepers - finished.value
            findings.record(
                "\(stuck) of \(sleepers) tasks cancelled as they went to sleep on the TestClock stayed asleep "
                    + "(\(clock.sleeperCount) sleeper(s) left) until the clock would advance"
            )
        }
    }

    func finish() {}
}
