import Dispatch
import Foundation
import Sobreiro
import Synchronization
import TestSupport
import Testing

/// Runs `onDeinit` when the last reference goes.
final class ReleaseSpy: Sendable {
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// A state that may hold the last reference to a spy; equal when it holds the same spy and count.
struct SpyHolder: ViewState {
    var spy: ReleaseSpy?
    var count = 0
    static func == (lhs: SpyHolder, rhs: SpyHolder) -> Bool { lhs.spy === rhs.spy && lhs.count == rhs.count }
}

final class WeakModelBox<State: ViewState>: @unchecked Sendable {
    weak var model: ViewModel<State>?
}

/// A model of `SpyHolder` and the spies that record, when released, which of its locks the releasing thread holds.
struct ReleaseProbe {
    let log = EventLog()
    let model: ViewModel<SpyHolder>
    private let box: WeakModelBox<SpyHolder>

    /// - Parameter spyInInitialState: whether the initial state holds a spy of its own.
    init(spyInInitialState: Bool = false) {
        let box = WeakModelBox<SpyHolder>()
        let log = log
        let spy = spyInInitialState ? Self.spy(box: box, log: log) : nil
        model = ViewModel(initialState: SpyHolder(spy: spy))
        box.model = model
        self.box = box
    }

    /// A spy that logs, when released, which locks of the model its releasing thread holds.
    func spy() -> ReleaseSpy {
        Self.spy(box: box, log: log)
    }

    private static func spy(box: WeakModelBox<SpyHolder>, log: EventLog) -> ReleaseSpy {
        ReleaseSpy { if let model = box.model { log.record(locksHeld(by: model)) } }
    }
}

/// Runs `body` on a thread of its own and tells whether it returned within `seconds`: `false` means that it
/// blocked on something the calling thread holds. The bound is a safety net: a held lock never lets go, and a busy
/// machine must not pass for one.
func returnsPromptly(within seconds: Double = patience, _ body: @escaping @Sendable () -> Void) -> Bool {
    onAnotherThread(body).wait(timeout: .now() + seconds) == .success
}

/// Tells, from a `deinit`, which locks of `model` the releasing thread still holds.
func locksHeld(by model: ViewModel<SpyHolder>) -> String {
    var held: [String] = []
    if !returnsPromptly({ _ = model.state }) { held.append("snapshot lock") }
    if !returnsPromptly({ _ = model.subscriberCount }) { held.append("model lock") }
    return held.isEmpty ? "released unlocked" : "released under " + held.joined(separator: ", ")
}

/// R4: states that the library lets go of are released after it unlocks, so their `deinit` may use the model.
@Suite("States released outside the library's locks")
struct ReleaseOutsideLockTests {
    @Test("R4: the replaced committed state is released with no lock of the model held")
    func committedStateReleasedOutsideLocks() {
        let probe = ReleaseProbe(spyInInitialState: true)
        let model = probe.model
        model.write { $0.whole = SpyHolder(spy: nil, count: 1) }
        #expect(model.state.count == 1)
        #expect(probe.log.all == ["released unlocked"])
    }

    @Test("R4: a rolled-back draft is released with no lock of the model held")
    func rolledBackDraftReleasedOutsideLocks() {
        let probe = ReleaseProbe()
        let model = probe.model
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try model.write { () throws(Failure) in
                model.state = SpyHolder(spy: probe.spy())
                throw Failure()
            }
        }
        #expect(probe.log.all == ["released unlocked"])
    }

    @Test("R4: a draft rolled back by a nested transaction is released after the outer one unlocks")
    func nestedRolledBackDraftReleasedOutsideLocks() {
        let probe = ReleaseProbe()
        let model = probe.model
        struct Failure: Error {}
        model.write {
            try? model.write { () throws(Failure) in
                model.state = SpyHolder(spy: probe.spy())
                throw Failure()
            }
            model.state.count = 1
        }
        #expect(model.state == SpyHolder(spy: nil, count: 1))
        #expect(probe.log.all == ["released unlocked"])
    }

    @Test("R4: the draft of an in-place write that throws is released with no lock of the model held")
    func thrownInPlaceDraftReleasedOutsideLocks() {
        let probe = ReleaseProbe()
        let model = probe.model
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try model.write { (state: borrowing Draft<SpyHolder>) throws(Failure) in
                state.spy = probe.spy()
                throw Failure()
            }
        }
        #expect(model.state == SpyHolder())
        #expect(probe.log.all == ["released unlocked"])
    }

    @Test("R4: the draft of a nested in-place write that throws is released after the outer transaction unlocks")
    func thrownNestedInPlaceDraftReleasedOutsideLocks() {
        let probe = ReleaseProbe()
        let model = probe.model
        struct Failure: Error {}
        model.write {
            try? model.write { (state: borrowing Draft<SpyHolder>) throws(Failure) in
                state.spy = probe.spy()
                throw Failure()
            }
            model.state.count = 1
        }
        #expect(model.state == SpyHolder(spy: nil, count: 1))
        #expect(probe.log.all == ["released unlocked"])
    }

    @Test("R4: a state sequence releases the state it drops with no lock of its buffer held")
    func stateBufferReleasesOutsideLock() async {
        let log = EventLog()
        let buffer = StateBuffer<SpyHolder>()
        let model = ViewModel(
            initialState: SpyHolder(
                spy: ReleaseSpy {
                    // Takes the buffer's lock on another thread, as a consumer would.
                    if !returnsPromptly({ buffer.keepAlive(ReleaseSpy {}) }) {
                        log.record("deinit ran under the state buffer's lock")
                    }
                }
            )
        )
        // The first render puts the initial state into the buffer, which then holds the spy's last reference.
        model.connect(buffer)
        let writer = onAnotherThread { model.write { $0.whole = SpyHolder(spy: nil, count: 1) } }
        await expectSignalled(writer)
        #expect(log.all == [])
    }
}
