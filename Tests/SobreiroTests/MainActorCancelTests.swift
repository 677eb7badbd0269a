import Dispatch
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// A state whose `==`, once armed, stops on the main queue until the test lets it go: it holds the hop's call at
/// the point where the subscription's code has begun and the view's render has not.
struct MainGatedState: ViewState {
    var count = 0

    static func == (lhs: MainGatedState, rhs: MainGatedState) -> Bool {
        MainEqualityGate.passIfArmed()
        return lhs.count == rhs.count
    }
}

/// The gate that `MainGatedState.==` stops at: armed for one comparison on the main queue.
enum MainEqualityGate {
    private static let armed = Atomic(false)
    static let entered = DispatchSemaphore(value: 0)
    static let release = DispatchSemaphore(value: 0)

    static func arm() { armed.store(true, ordering: .sequentiallyConsistent) }

    static func passIfArmed() {
        guard MainQueue.isCurrent, armed.exchange(false, ordering: .sequentiallyConsistent) else { return }
        entered.signal()
        _ = release.wait(timeout: .now() + patience)
    }
}

/// A flag that any thread sets and reads.
final class AtomicFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
}

/// Logs each render with whether the subscription's cancel had already returned.
@MainActor
final class CancelWatchingView: MainActorStatefulView {
    let cancelReturned: AtomicFlag
    var renders: [Render] = []
    init(cancelReturned: AtomicFlag) { self.cancelReturned = cancelReturned }

    struct Render: Equatable {
        let count: Int
        let afterCancel: Bool
    }

    func render(state: MainGatedState) {
        renders.append(Render(count: state.count, afterCancel: cancelReturned.isSet))
    }
}

/// R5 for main-actor views: a cancel on another thread, made while the main actor has begun a call of the
/// subscription (its state's `==`, then the render), waits for that call, so no render starts after it returned.
@Suite("Main-actor views cancelled from another thread", .serialized)
@MainActor
struct MainActorCancelTests {
    @Test("R5: a cancel made while the main actor compares the view's next state returns after that render")
    func cancelDuringMainActorCall() async {
        let model = ViewModel(initialState: MainGatedState())
        let cancelReturned = AtomicFlag()
        let view = CancelWatchingView(cancelReturned: cancelReturned)
        let token = model.subscribe(view: view)
        MainEqualityGate.arm()
        // Written elsewhere, so that the state reaches the view through a block on the main queue.
        #expect(runElsewhereHoldingMainQueue { model.write { model.state.count = 1 } })

        // The main actor stops inside `==`; a cancel from another thread either waits for the call or returns.
        let conductor = cancelWhileHeld(
            entered: MainEqualityGate.entered, release: MainEqualityGate.release,
            isWaiting: { token.isWaitedForByCancel }, cancel: { token.cancel() },
            cancelReturned: { cancelReturned.set() })
        await drainMainQueue()
        await Task.detached { _ = conductor.done.wait(timeout: .now() + patience) }.value
        model.write { model.state.count = 2 }
        await drainMainQueue()

        #expect(conductor.sawWait())
        #expect(
            view.renders == [.init(count: 0, afterCancel: false), .init(count: 1, afterCancel: false)],
            "a render after cancel() returned is marked afterCancel")
    }
}
