import SobreiroPrimitives

/// Coalesces requests to redraw the terminal into one redraw on the main actor.
///
/// Renderers ask from whichever thread renders, and the trace asks at every event; however many requests land
/// before the redraw runs, the terminal is drawn once, with the latest panels.
final class Repaint: Sendable {
    private let isPending = Locked(false)
    private let draw: @MainActor @Sendable () -> Void

    init(draw: @escaping @MainActor @Sendable () -> Void) {
        self.draw = draw
    }

    /// Schedules a redraw unless one is scheduled already; any thread may call it.
    func request() {
        let isFirst = isPending.withLock { isPending in
            defer { isPending = true }
            return !isPending
        }
        guard isFirst else { return }
        Task { @MainActor [self] in
            isPending.withLock { $0 = false }
            draw()
        }
    }
}
