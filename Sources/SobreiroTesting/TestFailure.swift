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

    init(fileID: String, filePath: StaticString, line: UInt, column: UInt) {
        sourceLocation = SourceLocation(
            fileID: fileID,
            filePath: "\(filePath)",
            line: Int(line),
            column: Int(column)
        )
        self.filePath = filePath
        self.line = line
    }
}

/// Records a failure with whichever framework runs the current test.
func reportFailure(_ message: String, at location: CallerLocation) {
    if Test.current != nil {
        Issue.record(Comment(rawValue: message), sourceLocation: location.sourceLocation)
        return
    }
    #if canImport(XCTest)
        XCTFail(message, file: location.filePath, line: location.line)
    #else
        Issue.record(Comment(rawValue: message), sourceLocation: location.sourceLocation)
    #endif
}
