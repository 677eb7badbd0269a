public import ScopeKit
import Synchronization

/// A cancellable that remembers whether it was cancelled, to prove that scoped work ends when it should.
///
/// Store it wherever the work under test is stored: among a behavior's cancellables, in an activation, in a
/// `whileActiveReceiver`.
///
/// ```swift
/// let probe = CancellationProbe()
/// let screen = AnonymousBehavior { cancellables in probe.store(in: &cancellables) }
/// root.host(screen)
/// screen.detach()
/// probe.expectCancelled()
/// ```
public final class CancellationProbe: Cancellable, Sendable {
    private let cancellations = Atomic<Int>(0)

    /// Creates a probe that has not been cancelled.
    public init() {}

    /// Whether the probe has been cancelled.
    public var isCancelled: Bool {
        cancellations.load(ordering: .acquiring) > 0
    }

    /// Records the cancellation.
    public func cancel() {
        cancellations.add(1, ordering: .acquiringAndReleasing)
    }

    /// Asserts that the probe has been cancelled, exactly once.
    ///
    /// - Parameters:
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func expectCancelled(
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let count = cancellations.load(ordering: .acquiring)
        guard count != 1 else { return }
        reportFailure(
            count == 0 ? "the work was not cancelled" : "the work was cancelled \(count) times, expected once",
            at: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Asserts that the probe has not been cancelled.
    ///
    /// - Parameters:
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func expectNotCancelled(
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        guard isCancelled else { return }
        reportFailure(
            "the work was cancelled, expected it to be running",
            at: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }
}
