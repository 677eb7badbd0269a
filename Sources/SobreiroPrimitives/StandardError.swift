#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where debug builds report what a developer must fix: refusals, lock-order inversions.
package enum StandardError {
    /// Writes `line` and a line break in one `write(2)`: unbuffered, so that it lands before a crash that may follow,
    /// and whole, so that lines from several threads do not interleave.
    package static func writeLine(_ line: String) {
        let text = line + "\n"
        _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }
}
