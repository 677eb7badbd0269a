import Dispatch
import Foundation
import Sobreiro
import SobreiroPrimitives
import Synchronization

/// The objects of one family's hazard run, which apply its steps on the driver thread and check their oracles.
protocol HazardStage: AnyObject {
    /// Applies one step, and checks what must hold right after it.
    func apply(_ hazard: Hazard)
    /// Releases every gate, lets the run come to rest, and checks what must hold at the end.
    func finish()
}

/// The stage of one family, and what it found.
final class HazardWorld {
    let findings = Findings()
    private let stage: any HazardStage

    init(family: HazardFamily) {
        let findings = findings
        stage =
            switch family {
            case .callbacks: CallbackStage(findings: findings)
            case .mainActor: MainActorStage(findings: findings)
            case .delivery: DeliveryStage(findings: findings)
            case .effects: EffectStage(findings: findings)
            case .sequences: SequenceStage(findings: findings)
            case .clock: ClockStage(findings: findings)
            case .asyncWriters: AsyncWriterStage(findings: findings)
            }
    }

    func apply(_ hazard: Hazard) {
        stage.apply(hazard)
    }

    func finish() {
        stage.finish()
    }
}

/// A gate a test double waits at: armed by one step, it stops the next caller of `pass()` there, until another step
/// opens it. The interleaving is the steps', not the scheduler's.
///
/// Only a thread that `writeElsewhere` started stops: a thread of the cooperative pool, such as one that runs an
/// effect's write-back, passes and leaves the gate armed. Held at the gate, it would be one of the few threads
/// that every test's tasks share, and the effect runs that a step waits for could wait for it in turn.
final class Gate: Sendable {
    private let state = Locked<(isArmed: Bool, waiting: Int)>((false, 0))
    private let opening = DispatchSemaphore(value: 0)

    /// Stops the next caller of `pass()`.
    func arm() {
        state.withLock { $0.isArmed = true }
    }

    /// Whether a caller waits at the gate now.
    var isHolding: Bool {
        state.withLock { $0.waiting > 0 }
    }

    /// Waits at the gate if it is armed (disarming it), for at most `HazardRun.waitLimit`: a gate nobody opens
    /// must not hang the run for good.
    func pass() {
        guard Thread.current.threadDictionary[Self.stoppableKey] != nil else { return }
        let mustWait = state.withLock { state -> Bool in
            guard state.isArmed else { return false }
            state.isArmed = false
            state.waiting += 1
            return true
        }
        guard mustWait else { return }
        _ = opening.wait(timeout: .now() + HazardRun.waitLimit)
        state.withLock { $0.waiting -= 1 }
    }

    /// Marks a thread whose callers of `pass()` an armed gate stops.
    static let stoppableKey = "SobreiroHazardGateStops"

    /// Disarms the gate and lets a waiting caller go; waits until it has left.
    func open() {
        let waiting = state.withLock { state -> Int in
            state.isArmed = false
            return state.waiting
        }
        for _ in 0..<waiting { opening.signal() }
        _ = waitUntil { !isHolding }
    }
}

/// Writes on a thread of its own, and waits until the write returned or a gate stopped its thread inside a
/// delivery: either way the write has committed.
func writeElsewhere(stoppingAt gate: Gate, findings: Findings, _ write: @escaping @Sendable () -> Void) {
    let returned = Counter()
    let wasHolding = gate.isHolding
    // A thread of its own, not a dispatch worker: the concurrent runs may keep every worker busy for seconds.
    Thread {
        Thread.current.threadDictionary[Gate.stoppableKey] = true
        write()
        returned.increment()
    }.start()
    let ended = waitUntil { returned.value > 0 || (!wasHolding && gate.isHolding) }
    if !ended {
        findings.record(
            "a write on another thread did not return within \(Int(HazardRun.waitLimit)) s while a view rendered slowly"
        )
    }
}

/// Holds the main queue for the driver: a job parked on it runs the driver's main-actor steps one by one, and
/// every other job queued on main (a hop of the library, a main-actor task) waits behind it until a step
/// drains the queue. So the order of hops, renders and cancellations is the steps' own, not the scheduler's.
final class MainQueueHold: @unchecked Sendable {
    private let commands = Locked<[() -> Void]>([])
    private let posted = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var isHeld = false

    /// Parks a job on the main queue, and waits until it runs.
    func hold() {
        guard !isHeld else { return }
        isHeld = true
        let entered = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { [self] in
            entered.signal()
            // A driver that hangs must not keep the main queue for good; one slowed by a busy machine must keep it.
            while posted.wait(timeout: .now() + HazardRun.stepTimeout) == .success {
                guard runNextCommand() else { break }
                done.signal()
            }
        }
        entered.wait()
    }

    /// Runs the next command, and lets go of it before the driver hears that it ran; `false` for a release.
    private func runNextCommand() -> Bool {
        guard let command = commands.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return false }
        command()
        return true
    }

    /// Runs `body` on the main queue, inside the parked job, or as a job of its own when the queue is not held.
    func run<T: Sendable>(_ body: @MainActor () -> T) -> T {
        guard isHeld else { return onMain(body) }
        return withoutActuallyEscaping(body) { body in
            var result: T?
            let box = UnsafeTransfer { result = MainActor.assumeIsolated(body) }
            commands.withLock { $0.append(box.value) }
            posted.signal()
            done.wait()
            return result!
        }
    }

    /// Ends the parked job, so that the jobs queued behind it run.
    func release() {
        guard isHeld else { return }
        isHeld = false
        posted.signal()
    }

    /// Runs what waits on the main queue, then holds it again.
    func drain() {
        release()
        drainMainQueue()
        hold()
    }
}

/// Carries a value the compiler cannot prove sendable across a hand-over that the caller orders itself.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
