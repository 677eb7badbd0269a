import Dispatch
import Foundation
import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import TestSupport
import Testing

/// R5 for scoped work: a delivery that another thread had already started when the behavior deactivated never
/// writes the model after the deactivation returns.
@Suite("Deactivation racing an upstream delivery")
@MainActor
struct DeactivationRaceTests {
    @Test("R5: an upstream handler running during deactivation has written before the deactivation returns")
    func upstreamDeliveryRacingDeactivation() async {
        let upstream = ViewModel(initialState: Feed())
        let entered = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let token = Locked<StateSubscription?>(nil)
        let model = FeedModel { model, activation in
            let subscription = model.subscribe(to: upstream) { [model] upstream in
                guard upstream.count == 1 else { return }
                entered.signal()
                _ = released.wait(timeout: .now() + patience)
                model.write { $0.count = upstream.count }
            }
            subscription.store(in: activation)
            token.withLock { $0 = subscription }
        }
        let root = RootScope()
        let screen = Behavior()
        screen.bind(model)
        root.host(screen)

        let writerDone = DispatchSemaphore(value: 0)
        Thread {
            upstream.write { $0.count = 1 }
            writerDone.signal()
        }.start()
        await expectSignalled(entered)
        // Lets the handler go once the deactivation is known to wait for it, or after a safety net of time.
        let releaserDone = DispatchSemaphore(value: 0)
        Thread {
            let deadline = Date() + patience
            while token.withLock({ $0 })?.isWaitedForByCancel != true && Date() < deadline { usleep(1000) }
            released.signal()
            releaserDone.signal()
        }.start()

        screen.detach()
        let afterDeactivation = model.state.count

        await expectSignalled(releaserDone)
        await expectSignalled(writerDone)
        #expect(afterDeactivation == 1, "the deactivation returned before the running handler had finished")
        #expect(model.state.count == afterDeactivation)
        token.withLock { $0 = nil }  // the token's handler holds the model, whose hook holds the token
    }
}
