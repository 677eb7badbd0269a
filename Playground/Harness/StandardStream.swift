#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes straight to the standard output or error file descriptors, unbuffered.
///
/// C's `stdout` and `stderr` are global variables that Swift 6 refuses to touch from concurrent code; the file
/// descriptors behind them are plain numbers.
enum StandardStream {
    /// Writes `text` to standard error.
    static func error(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Writes `text` to standard output at once, bypassing `print`'s buffer; for drawing the terminal.
    static func output(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { buffer in
                #if canImport(Darwin)
                    Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #elseif canImport(Glibc)
                    Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                    Musl.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
