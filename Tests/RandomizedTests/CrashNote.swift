import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The step a randomized run is taking, printed if the process crashes: a library that traps or reads a
/// destroyed object ends the process before any report, so the last words must name the seed and the step.
///
/// The note lives in a fixed buffer that a signal handler writes with `write(2)`, the only thing a handler may
/// safely do; the handler then lets the signal take its default course.
enum CrashNote {
    private static let capacity = 512
    nonisolated(unsafe) private static let buffer: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        buffer.initialize(repeating: 0, count: capacity)
        return buffer
    }()
    nonisolated(unsafe) private static var length = 0
    /// Families run at once, each on a driver thread of its own: one note changes at a time.
    private static let writing = NSLock()
    private static let installation: Void = install()

    /// Remembers `description` as the step under way.
    static func set(_ description: String) {
        _ = installation
        let text = "\nrandomized run crashed during " + description + "\n"
        let bytes = Array(text.utf8.prefix(capacity))
        writing.lock()
        defer { writing.unlock() }
        length = 0  // a crash while the note changes prints nothing rather than half of it
        for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
        length = bytes.count
    }

    private static func install() {
        for signal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT] {
            var action = sigaction()
            #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = { number in
                    _ = write(STDERR_FILENO, CrashNote.buffer, CrashNote.length)
                    Glibc.signal(number, SIG_DFL)
                    raise(number)
                }
            #else
                action.__sigaction_u.__sa_handler = { number in
                    _ = write(STDERR_FILENO, CrashNote.buffer, CrashNote.length)
                    Darwin.signal(number, SIG_DFL)
                    raise(number)
                }
            #endif
            sigaction(signal, &action, nil)
        }
    }
}
