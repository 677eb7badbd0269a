import Dispatch
import Synchronization

extension ViewModel {
    /// Subscribes a renderer isolated to the main actor and renders the current state into it at once.
    ///
    /// A write made on the main queue renders `view` before it returns. A write on any other thread schedules
    /// the render on the main actor; writes that land before that render runs are coalesced, so `view` renders
    /// only the latest of them and never ends on a stale state. The model holds `view` weakly.
    ///
    /// ```swift
    /// @MainActor func viewDidLoad() {
    ///     viewModel.subscribe(view: self)
    /// }
    /// ```
    ///
    /// - Parameter view: The main-actor renderer to keep up to date.
    @MainActor
    public final func subscribe<V: MainActorStatefulView>(view: V) where V.State == State {
        let relay = MainActorRelay(view: view)
        let subscriber = Subscriber<State>(target: view) { _, state in relay.receive(state) }
        relay.onMainActor { add(subscriber, for: view, replacingLive: false) }
    }

    /// Stops rendering into a main-actor `view`. Does nothing if `view` is not subscribed. A render already
    /// scheduled for it is dropped.
    ///
    /// - Parameter view: A view passed to `subscribe(view:)` before.
    @MainActor
    public final func unsubscribe<V: MainActorStatefulView>(view: V) where V.State == State {
        removeSubscriber(for: view)
    }
}

/// Carries states from any thread to one main-actor view, keeping only the latest one in flight.
final class MainActorRelay<View: MainActorStatefulView>: @unchecked Sendable {
    private weak var view: View?
    /// The latest state waiting for the main actor.
    private let pending = Locked<View.State?>(nil)
    /// A thread known to be running on the main actor right now, or 0.
    private let mainActorThread = Atomic<UInt>(0)

    @MainActor
    init(view: View) {
        self.view = view
    }

    /// Runs `body`, which the caller runs on the main actor, letting renders it triggers on this thread run
    /// synchronously.
    @MainActor
    func onMainActor(_ body: () -> Void) {
        mainActorThread.store(ThreadID.current, ordering: .relaxed)
        body()
        mainActorThread.store(0, ordering: .relaxed)
    }

    /// Called by the model's deliverer, one state at a time in commit order.
    func receive(_ state: View.State) {
        if mainActorThread.load(ordering: .relaxed) == ThreadID.current || MainQueue.isCurrent {
            pending.withLock { $0 = nil }  // this state is newer than any render still scheduled
            MainActor.assumeIsolated { view?.render(state: state) }
            return
        }
        let needsSchedule = pending.withLock { pending in
            defer { pending = state }
            return pending == nil
        }
        if needsSchedule {
            Task { @MainActor in self.renderPending() }
        }
    }

    @MainActor
    private func renderPending() {
        let state = pending.withLock { pending in
            defer { pending = nil }
            return pending
        }
        if let state, let view {
            view.render(state: state)
        }
    }
}

/// Tells whether the calling code runs on the main dispatch queue, the home of the main actor.
enum MainQueue {
    private static let key: DispatchSpecificKey<Void> = {
        let key = DispatchSpecificKey<Void>()
        DispatchQueue.main.setSpecific(key: key, value: ())
        return key
    }()

    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) != nil
    }
}
