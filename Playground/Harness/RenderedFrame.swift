import SobreiroPrimitives

/// What one renderer drew last: the state it was given and the panel it made of it.
///
/// Renderers are called on whichever thread delivers a change, so the frame keeps its contents behind a lock.
/// The scripted session waits on it (``waitUntilShowing(_:)``) instead of sleeping: it resumes exactly when the
/// renderer has drawn the state it expects, however the threads interleave. The interactive session observes
/// it to redraw the terminal.
final class RenderedFrame<State: Sendable & Equatable>: Sendable {
    private struct Contents {
        var state: State?
        var panel: Panel
        var waiters: [(wanted: @Sendable (State) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        var observer: (@Sendable () -> Void)?
    }

    private let contents: Locked<Contents>

    /// A frame that shows `placeholder` until the first render.
    init(placeholder: Panel) {
        contents = Locked(Contents(state: nil, panel: placeholder))
    }

    /// The panel drawn last.
    var panel: Panel {
        contents.withLock { $0.panel }
    }

    /// The state drawn last, or `nil` before the first render.
    var state: State? {
        contents.withLock { $0.state }
    }

    /// Records a render; called by the renderer, on the thread that renders.
    func record(_ state: State, as panel: Panel) {
        let (ready, observer) = contents.withLock { contents in
            contents.state = state
            contents.panel = panel
            let ready = contents.waiters.filter { $0.wanted(state) }.map(\.continuation)
            contents.waiters.removeAll { $0.wanted(state) }
            return (ready, contents.observer)
        }
        for waiter in ready { waiter.resume() }
        observer?()
    }

    /// Calls `observer` after every render from now on, on the rendering thread.
    func observe(_ observer: @escaping @Sendable () -> Void) {
        contents.withLock { $0.observer = observer }
    }

    /// Returns once the renderer has drawn `state` (at once if it is the last state drawn).
    func waitUntilShowing(_ state: State) async {
        await waitUntil { $0 == state }
    }

    /// Returns once the renderer has drawn a state that satisfies `wanted` (at once if the last one does).
    func waitUntil(_ wanted: @escaping @Sendable (State) -> Bool) async {
        await withCheckedContinuation { continuation in
            let isShowing = contents.withLock { contents in
                if let state = contents.state, wanted(state) { return true }
                contents.waiters.append((wanted, continuation))
                return false
            }
            if isShowing { continuation.resume() }
        }
    }
}
