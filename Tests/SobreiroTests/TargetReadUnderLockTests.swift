#if DEBUG
    import Dispatch
    import Sobreiro
    import SobreiroPrimitives
    import Synchronization
    import TestSupport
    import Testing

    /// A view that carries a spy, so its release logs which locks of the model the releasing thread holds.
    final class SpiedView: StatefulView {
        typealias State = SpyHolder
        let spy: ReleaseSpy
        init(spy: ReleaseSpy) { self.spy = spy }
        func render(state: SpyHolder) {}
    }

    /// The one strong reference to a view, dropped on another thread when asked.
    final class ViewOwner: @unchecked Sendable {
        var view: SpiedView?
        init(_ view: SpiedView) { self.view = view }
    }

    /// R4 for the targets that the model reads through their weak references under its lock: the read takes a
    /// strong reference, and if the view's owner lets go of the view meanwhile on another thread, that reference
    /// is the last. The test point runs right after the read, under the lock, and has the owner let go then, so
    /// the interleaving is forced rather than hoped for.
    @Suite("Targets read under the model's lock", .serialized)
    struct TargetReadUnderLockTests {
        /// Has `owner` let go of its view on another thread the first time the model reads that view under its lock,
        /// while `body` runs; then clears the test point.
        func lettingGo(of owner: ViewOwner, during body: () -> Void) -> Bool {
            let identity = ObjectIdentifier(owner.view!)
            let fired = AtomicFlag()
            TestPoints.didReadTargetUnderLock = { target in
                guard ObjectIdentifier(target) == identity, !fired.isSet else { return }
                fired.set()
                onAnotherThread { owner.view = nil }.wait()
            }
            body()
            TestPoints.didReadTargetUnderLock = nil
            return fired.isSet
        }

        /// A model whose one view, owned by `owner`, logs its release to `probe`.
        func subscribedView() -> (probe: ReleaseProbe, model: ViewModel<SpyHolder>, owner: ViewOwner) {
            let probe = ReleaseProbe()
            let owner = ViewOwner(SpiedView(spy: probe.spy()))
            probe.model.subscribe(view: owner.view!)
            return (probe, probe.model, owner)
        }

        @Test("R4: a view let go of while subscriberCount reads it is released with no lock of the model held")
        func viewLetGoDuringCount() {
            let (probe, model, owner) = subscribedView()
            var count = -1
            let fired = lettingGo(of: owner) { count = model.subscriberCount }
            #expect(fired)
            #expect(count == 1)
            #expect(probe.log.all == ["released unlocked"])
        }

        @Test("R4: a view let go of while another view subscribes is released with no lock of the model held")
        func viewLetGoDuringSubscribe() {
            let (probe, model, owner) = subscribedView()
            let other = SpiedView(spy: ReleaseSpy {})
            let fired = lettingGo(of: owner) { model.subscribe(view: other) }
            #expect(fired)
            #expect(probe.log.all == ["released unlocked"])
            #expect(model.subscriberCount == 1)
        }

        @Test("R4: a view let go of while the model unsubscribes another object everywhere is released unlocked")
        func viewLetGoDuringUnsubscribeEverywhere() {
            let (probe, model, owner) = subscribedView()
            let follower = ViewModel(initialState: SpyHolder())
            follower.subscribe(to: model) { _ in }
            let fired = lettingGo(of: owner) { follower.unsubscribe(from: model) }
            #expect(fired)
            #expect(probe.log.all == ["released unlocked"])
        }
    }
#endif
