import Combine
import Dispatch
import Foundation
import Sobreiro
import SobreiroCombine
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// A state whose `==` runs a hook, on the thread the test picks (the hook is shared: the suite runs serialized):
/// user code that the publisher calls between
/// taking a value and sending it.
struct Probed: ViewState {
    var count = 0

    /// Runs inside `==` on the thread whose `pthread_self` is `onThread`, once.
    static let hook = Locked<(onThread: pthread_t, run: @Sendable () -> Void)?>(nil)

    static func == (lhs: Probed, rhs: Probed) -> Bool {
        let run = hook.withLock { hook -> (@Sendable () -> Void)? in
            guard let current = hook, pthread_equal(current.onThread, pthread_self()) != 0 else { return nil }
            hook = nil
            return current.run
        }
        run?()
        return lhs.count == rhs.count
    }
}

final class ProbedModel: ViewModel<Probed>, @unchecked Sendable {
    init() { super.init(initialState: Probed()) }
}

@Suite("A state publisher runs the state's == outside its lock", .serialized)
struct StatePublisherEqualityHookTests {
    /// The sender compares each value with the last one sent (`==`, user code) after taking it under the lock and
    /// before sending it. A cancel made from that `==`, on the sending thread, returns at once (it does not wait
    /// for its own thread), so the sender checks again before sending the value it took.
    @Test("R5: a value is never sent after cancel() returned, even when cancel runs inside the state's ==")
    func cancelFromInsideEquals() async {
        let model = ProbedModel()
        let log = EventLog()
        let recorder = Recorder<Probed>(initialDemand: .none) { _, state in
            log.record("received \(state.count)")
            return .none
        }
        model.publisher.subscribe(recorder)
        let requester = onAnotherThread {
            recorder.request(.max(1))  // sends count 0, which becomes the last value sent
            model.write { $0.count = 1 }  // waits for demand
            Probed.hook.withLock {
                $0 = (
                    pthread_self(),
                    {
                        recorder.cancel()
                        log.record("cancel returned")
                    }
                )
            }
            recorder.request(.max(1))  // takes count 1, compares it with count 0: the hook cancels
        }
        await expectSignalled(requester)
        let events = log.all
        #expect(events.first == "received 0")
        #expect(
            events.last == "cancel returned",
            "the subscriber received a value after its cancel() had returned: \(events)"
        )
    }

    /// `==` runs on the sending thread with no lock of the publisher held: it may request more.
    @Test("R4: the state's == may request demand from the sending thread without deadlocking")
    func requestFromInsideEquals() async {
        let model = ProbedModel()
        let recorder = Recorder<Probed>(initialDemand: .none)
        model.publisher.subscribe(recorder)
        let requester = onAnotherThread {
            recorder.request(.max(1))
            model.write { $0.count = 1 }
            Probed.hook.withLock { $0 = (pthread_self(), { recorder.request(.max(5)) }) }
            recorder.request(.max(1))
            model.write { $0.count = 2 }
        }
        await expectSignalled(requester)
        #expect(recorder.history.map(\.count) == [0, 1, 2])
        recorder.cancel()
    }
}
