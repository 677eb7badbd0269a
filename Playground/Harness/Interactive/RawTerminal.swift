#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The controlling terminal, switched to a full-screen, key-at-a-time mode and back.
///
/// Raw mode here turns off line buffering and echo only: the terminal still turns Ctrl-C into SIGINT, which
/// the interactive session handles so that it can restore the terminal before it exits.
@MainActor
final class RawTerminal {
    private var original = termios()
    private var isRaw = false

    /// Switches to raw mode and to the alternate screen, with the cursor hidden.
    ///
    /// - Returns: `false` if standard input is not a terminal whose mode can be changed.
    func enter() -> Bool {
        guard !isRaw, tcgetattr(STDIN_FILENO, &original) == 0 else { return false }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { controls in
            controls[Int(VMIN)] = 1
            controls[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { return false }
        isRaw = true
        write("\u{1B}[?1049h\u{1B}[?25l")
        return true
    }

    /// Puts the terminal back as it was; does nothing if it is not in raw mode.
    func restore() {
        guard isRaw else { return }
        isRaw = false
        write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    /// Draws `lines` over the previous frame, from the top left corner, clearing what the new frame leaves.
    func draw(_ lines: [String]) {
        write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
    }

    private func write(_ text: String) {
        StandardStream.output(text)
    }
}
