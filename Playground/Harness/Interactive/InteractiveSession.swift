import Dispatch
import Sobreiro

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The live terminal UI: the same app as the scripted session, on a network that takes real time, with scores
/// arriving every couple of seconds and the keys in the user's hands.
///
/// It takes over the terminal (raw mode, alternate screen) and gives it back on every way out: `q`, Ctrl-D, the
/// end of input, and Ctrl-C, SIGTERM or SIGHUP. The signals arrive on dispatch sources rather than in a signal
/// handler, so restoring the terminal is ordinary code on the main actor.
@MainActor
final class InteractiveSession {
    static let keys = [
        "1/2 or Tab: switch tabs   r: refresh or retry   f: fail the next load   q: quit",
        "↑/↓: choose a player   Enter: open their detail   Esc or b: back",
    ]

    /// The signals that end the session: Ctrl-C, a polite kill, and the terminal going away.
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    private let league = League()
    private let app: LeaderboardApp
    private let terminal = RawTerminal()
    private let trace: TraceTimeline?
    private var sources: [any DispatchSourceProtocol] = []
    private var ticker: Task<Void, Never>?
    private var isRunning = false
    private var finished: CheckedContinuation<Int32, Never>?

    init(showsTrace: Bool) {
        app = LeaderboardApp(league: league, latency: SimulatedLatency(), clock: ContinuousClock())
        trace = showsTrace ? TraceTimeline(limit: 12) : nil
    }

    /// Runs until the user quits.
    ///
    /// - Returns: The exit status: 0 after `q`, 128 plus the signal's number after a signal, or `nil` if the
    ///   terminal could not be put in raw mode.
    func run() async -> Int32? {
        guard terminal.enter() else { return nil }
        isRunning = true
        let repaint = Repaint { [weak self] in self?.redraw() }
        app.screen.observeChanges(repaint.request)
        trace?.install(onEvent: repaint.request)
        listenForKeys()
        for signalNumber in Self.signals { listen(for: signalNumber) }
        app.start()
        ticker = ScoreTicker.start(on: league)
        redraw()
        return await withCheckedContinuation { finished = $0 }
    }

    private func redraw() {
        guard isRunning else { return }
        var lines = app.screen.lines
        lines += Self.keys.map { " " + $0 }
        if let trace {
            lines += Panel(title: "Trace, latest last", lines: trace.latest(12)).drawn(width: 96)
        }
        terminal.draw(lines)
    }

    private func listenForKeys() {
        let source = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.readKeys() }
        }
        source.resume()
        sources.append(source)
    }

    private func listen(for signalNumber: Int32) {
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.finish(status: 128 + signalNumber) }
        }
        source.resume()
        sources.append(source)
    }

    private func readKeys() {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        guard count > 0 else { return finish(status: 0) }
        let input = buffer[..<count]
        // Esc alone arrives as one byte; an arrow key as one escape sequence, ESC [ A (up) to D (left).
        if input.first == 0x1B {
            guard input.count > 1 else { return app.scope.leaderboard.closeTopDetail() }
            switch input.count == 3 ? input.last : nil {
            case UInt8(ascii: "A"): moveHighlight(by: -1)
            case UInt8(ascii: "B"): moveHighlight(by: 1)
            case UInt8(ascii: "C"), UInt8(ascii: "D"): app.tabs.selectNext()
            default: break
            }
            return
        }
        for key in input { press(key) }
    }

    private func press(_ key: UInt8) {
        switch key {
        case UInt8(ascii: "1"): app.tabs.select(.leaderboard)
        case UInt8(ascii: "2"): app.tabs.select(.profile)
        case UInt8(ascii: "\t"): app.tabs.selectNext()
        case UInt8(ascii: "r"), UInt8(ascii: "R"): app.list.refresh()
        case UInt8(ascii: "f"), UInt8(ascii: "F"):
            league.failNextRequest()
            app.list.refresh()
        case UInt8(ascii: "k"): moveHighlight(by: -1)
        case UInt8(ascii: "j"): moveHighlight(by: 1)
        case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
            if showsList { app.scope.leaderboard.openHighlighted() }
        case UInt8(ascii: "b"), UInt8(ascii: "B"), 0x7F: app.scope.leaderboard.closeTopDetail()  // 0x7F: Backspace
        case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x04: finish(status: 0)  // 0x04: Ctrl-D
        default: break
        }
    }

    /// Whether the standings are on screen: the Leaderboard tab, with no detail pushed over them. The cursor
    /// moves, and Enter opens, only where the user can see them.
    private var showsList: Bool {
        app.tabs.state.selected == .leaderboard && app.navigation.state.path.isEmpty
    }

    private func moveHighlight(by offset: Int) {
        if showsList { app.list.moveHighlight(by: offset) }
    }

    private func finish(status: Int32) {
        guard isRunning else { return }
        isRunning = false
        for source in sources { source.cancel() }
        sources.removeAll()
        for signalNumber in Self.signals { signal(signalNumber, SIG_DFL) }
        ticker?.cancel()
        Trace.uninstall()
        app.stop()
        terminal.restore()
        finished?.resume(returning: status)
        finished = nil
    }
}
