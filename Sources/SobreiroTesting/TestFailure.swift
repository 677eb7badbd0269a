import ScopeKit
import Testing

#if canImport(XCTest)
    import XCTest
#endif

/// Where a helper reports a failure: the caller's line, for Swift Testing and XCTest alike.
///
/// Every assertion of this module takes the caller's location through defaulted `fileID`, `filePath`, `line`
/// and `column` parameters, so a failure points at the test, not at the helper.
struct CallerLocation: Sendable {
    let sourceLocation: SourceLocation
    let filePath: StaticString
    let line: UInt
    /// Whether Swift Testing was running the code that made this location. A failure reported later from where
    /// no test is current, such as a `deinit` on another thread, then still goes to Swift Testing rather than to
    /// XCTest, which would drop it.
    let isSwiftTesting: Bool

    init(fileID: String, filePath: StaticString, line: UInt, column: UInt) {
        sourceLocation = SourceLocation(
            fileID: fileID,
            filePath: "\(filePath)",
            line: Int(line),
            column: Int(column)
        )
        self.filePath = filePath
        self.line = line
        isSwiftTesting = Test.current != nil
    }
}

/// Records a failure with whichever framework runs the current test, or ran the code that made `location`.
func reportFailure(_ message: String, at location: CallerLocation) {
    if Test.current != nil || location.isSwiftTesting {
        Issue.record(Comment(rawValue: message), sourceLocation: location.sourceLocation)
        return
    }
    #if canImport(XCTest)
        XCTFail(message, file: location.filePath, line: location.line)
    #else
        Issue.record(Comment(rawValue: message), sourceLocation: location.sourceLocation)
    #endif
}

/// Records a failure that a dependency reports: at `site`, where the test's code used the dependency, if there is
/// one, or else at the current test.
func reportFailure(_ message: String, at site: SourceSite?) {
    let test = Test.current
    #if canImport(XCTest)
        if test == nil {
            XCTFail(site.map { "\($0.fileID):\($0.line): \(message)" } ?? message)
            return
        }
    #endif
    let location =
        site.map { SourceLocation(fileID: $0.fileID, filePath: $0.filePath, line: $0.line, column: $0.column) }
        ?? test?.sourceLocation
    if let location {
        Issue.record(Comment(rawValue: message), sourceLocation: location)
    } else {
        Issue.record(Comment(rawValue: message))
    }
}
