import Dispatch
import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Synchronization
import TestSupport
import Testing

private struct Stack: ViewState {
    var path: [Int] = []
    /// Written by another thread, whose delivery the test holds.
    var badge = 0
}

private struct Page: Identifiable, Equatable, Sendable {
    let id: Int
}

private final class PageScope: Scope {
    let page: Int

    init(page: Int) {
        self.page = page
    }
}

/// A plain view that holds the thread delivering to it inside its first render of a state with a badge, until the
/// test releases `hold`: that thread stays the model's deliverer meanwhile.
private final class HeldStackView: StatefulView, Sendable {
    let hold = Hold()

    func render(state: Stack) {
        if state.badge != 0 { hold.holdOnce() }
    }
}

@Suite("Routes follow a main-actor write before it returns, even while another thread delivers")
@MainActor
struct RouteWhileAnotherThreadDeliversTests {
    @Test(
        "G2: pushes and pops written on the main actor are applied before the write returns, while another thread delivers",
        arguments: [false, true]
    )
    func stackFollowsMainActorWrites(isHeldBeforeRoute: Bool) async {
        let model = ViewModel(initialState: Stack())
        let held = HeldStackView()
        let root = RootScope()
        let stack = Scope()
        if isHeldBeforeRoute { model.subscribe(view: held) }
        stack.hostChildren(following: model.map { $0.path.map(Page.init) }) { PageScope(page: $0.id) }
        root.host(stack)
        if !isHeldBeforeRoute { model.subscribe(view: held) }
        let writer = onAnotherThread { model.write { $0.badge = 1 } }
        #expect(await held.hold.isHeld())

        var expected: [Int] = []
        for step in 1...40 {
            if step % 3 == 0 {
                model.write { _ = $0.path.popLast() }
                _ = expected.popLast()
            } else {
                model.write { $0.path.append(step) }
                expected.append(step)
            }
            let shown = stack.children.compactMap { ($0 as? PageScope)?.page }
            #expect(shown == expected, "the stack had not followed the write when it returned")
        }

        held.hold.release()
        #expect(await eventually { writer.wait(timeout: .now()) == .success })
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        #expect(stack.children.compactMap { ($0 as? PageScope)?.page } == expected)
        stack.detach()
    }
}
