import Foundation
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import Testing

@Suite("The registry of effect activities")
struct ActivityRegistryTests {
    /// An activity whose last reference goes while a newer activity of the same model is released on another thread
    /// must not hold a reference to the newer one under the registry's lock: if it does, and the other thread's
    /// reference goes meanwhile, releasing its own runs the newer one's deinit under the lock that deinit takes, and
    /// the thread deadlocks on itself, stalling every effect of the process after it.
    ///
    /// The registry's hooks pin the interleaving: the old activity's deinit makes the newer one as it begins, and
    /// once it holds the lock and has examined the entry, it hands the newer one's last outside reference to a
    /// second thread and waits until that thread has let go of it. In a process of its own, because the hooks are
    /// process-wide and a deadlock there must not stall the other tests.
    @Test("an activity leaving while a newer one of its model is released on another thread deadlocks nothing")
    func leavingBesideANewerActivity() async {
        await #expect(processExitsWith: .success) {
            await Interleaving.run()
        }
    }
}

/// The interleaving of ``ActivityRegistryTests/leavingBesideANewerActivity()``, run in the exit test's process.
private enum Interleaving {
    final class Model: Sendable {}

    struct State {
        var leaving = 0
        var examined = 0
        /// The thread that releases the old activity, while its deinit runs.
        var examiner: pthread_t?
        var isExamining = false
        /// The newer activity's tracker, its only reference outside the registry.
        var newer: (any EffectTracker)?
    }

    static let origin = EffectOrigin(form: "effect(.when)", fileID: "Registry/Interleaving.swift", line: 1)

    static func run() async {
        let model = Model()
        let tracking = TestEffectTracking.shared
        let state = Locked(State())
        let newerLetGo = DispatchSemaphore(value: 0)

        EffectActivity.registryHooks = EffectActivity.RegistryHooks(
            activityWillLeave: {
                let (leaving, onExaminer) = state.withLock { state in
                    state.leaving += 1
                    let onExaminer = state.examiner.map { pthread_equal($0, pthread_self()) != 0 } ?? false
                    return (state.leaving, onExaminer && state.isExamining)
                }
                switch leaving {
                case 1:
                    // The old activity leaves: its weak entry reads nil from now on, so the model gets a new one.
                    let newer = tracking.tracker(for: model, origin: origin)
                    state.withLock { $0.newer = newer }
                case 2 where onExaminer:
                    fail("the newer activity was released by the old one's deinit, under the registry's lock")
                default:
                    // Released by the other thread: the old deinit may go on.
                    newerLetGo.signal()
                }
            },
            entryExamined: {
                let first = state.withLock { state in
                    state.examined += 1
                    return state.examined == 1
                }
                guard first else { return }
                // The old activity's deinit holds the registry's lock: the newer one's last outside reference goes
                // on another thread, now.
                let newer = Box(
                    state.withLock { state in
                        defer { state.newer = nil }
                        return state.newer
                    })
                Thread {
                    newer.value = nil
                    newerLetGo.signal()
                }.start()
                if newerLetGo.wait(timeout: .now() + 60) == .timedOut {
                    fail("the thread releasing the newer activity never got on")
                }
            }
        )

        // The old activity, held only by its tracker, which a thread of its own releases.
        let old = Box<any EffectTracker>(tracking.tracker(for: model, origin: origin))
        await withCheckedContinuation { (released: CheckedContinuation<Void, Never>) in
            Thread {
                state.withLock {
                    $0.examiner = pthread_self()
                    $0.isExamining = true
                }
                old.value = nil
                state.withLock { $0.isExamining = false }
                released.resume()
            }.start()
        }
        // The newer activity's deinit may still be finishing on the other thread: it removes its entry when done.
        while EffectActivity.of(model) != nil || state.withLock({ $0.leaving }) < 2 {
            try? await Task.sleep(for: .milliseconds(1))
        }
        EffectActivity.registryHooks = nil
        _ = model
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(1)
    }
}

/// A reference that a closure can let go of.
private final class Box<Value>: @unchecked Sendable {
    var value: Value?

    init(_ value: Value?) {
        self.value = value
    }
}
