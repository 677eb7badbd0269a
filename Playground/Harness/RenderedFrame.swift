import SobreiroPrimitives

/// What one renderer drew last: the state it was given and the panel it made of it.
///
/// Renderers are called on whichever thread delivers a change, so the frame keeps its contents behind a lock.
/// The scripted session waits on it (``waitUntilShowing(_:)``) instead of sleeping: it resumes exactly when the
/// renderer has drawn the state it expects, however the threads interleave. The interactive session observes
/// it to redraw the terminal.
final class RenderedFrame<State: Sendable & Equatable>: Sendable {
    private typealias Waiter = (wanted: @Sendable (State) -> Bool, continuation: CheckedContinuation<Void, Never>)

    private struct Contents {
        var state: State?
        var panel: Panel
        /// How many renders there have been: a waiter checked on one state is listed only if no render came since.
        var renders = 0
        var waiters: [Waiter] = []
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
    ///
    /// The waiters' conditions (and the `==` they may call) run after unlocking, and the state and panel replaced
    /// are let go of there too: none of them runs under the lock.
    func record(_ state: State, as panel: Panel) {
        var (replacedState, replacedPanel): (State?, Panel) = (state, panel)
        let (waiters, observer) = contents.withLock { contents in
            swap(&contents.state, &replacedState)
            swap(&contents.panel, &replacedPanel)
            contents.renders += 1
            defer { contents.waiters = [] }
            return (contents.waiters, contents.observer)
        }
        var stillWaiting: [Waiter] = []
        for waiter in waiters {
            if waiter.wanted(state) { waiter.continuation.resume() } else { stillWaiting.append(waiter) }
        }
        if !stillWaiting.isEmpty { keepWaiting(stillWaiting) }
        withExtendedLifetime((replacedState, replacedPanel)) { observer?() }
    }

    /// Calls `observer` after every render from now on, on the rendering thread.
    func observe(_ observer: @escaping @Sendable () -> Void) {
        var replaced: (@Sendable () -> Void)? = observer
        contents.withLock { swap(&$0.observer, &replaced) }
    }

    /// Returns once the renderer has drawn `state` (at once if it is the last state drawn).
    func waitUntilShowing(_ state: State) async {
        await waitUntil { $0 == state }
    }

    /// Returns once the renderer has drawn a state that satisfies `wanted` (at once if the last one does).
    func waitUntil(_ wanted: @escaping @Sendable (State) -> Bool) async {
        await withCheckedContinuation { continuation in
            keepWaiting([(wanted, continuation)])
        }
    }

    /// Lists `waiters` until a render satisfies them, resuming at once those that the last state drawn satisfies.
    ///
    /// Their conditions are checked outside the lock, on the state drawn last; a render that lands meanwhile moves
    /// the drawn count on, and the check is made again on its state, so no render is missed.
    private func keepWaiting(_ waiters: [Waiter]) {
        var waiters = waiters
        while !waiters.isEmpty {
            let (state, renders) = contents.withLock { ($0.state, $0.renders) }
            if let state {
                waiters.removeAll { waiter in
                    guard waiter.wanted(state) else { return false }
                    waiter.continuation.resume()
                    return true
                }
            }
            let listed = contents.withLock { contents -> Bool in
                guard contents.renders == renders else { return false }
                contents.waiters.append(contentsOf: waiters)
                return true
            }
            if listed { return }
        }
    }
}
