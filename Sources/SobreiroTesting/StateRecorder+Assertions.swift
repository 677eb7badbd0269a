extension StateRecorder {
    /// Asserts that the states delivered since the last look are exactly `expected`, in order.
    ///
    /// A missing state, an extra state or a different one fails the test at this line, with the path to the
    /// first differing field. Call it with no states to assert that nothing new was delivered.
    ///
    /// ```swift
    /// model.retry()
    /// states.expect(.loading, .loaded(["oak"]))
    /// ```
    ///
    /// - Parameters:
    ///   - expected: The states that should have been delivered since the last look.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func expect(
        _ expected: State...,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        expect(expected, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Asserts that the states delivered since the last look are exactly `expected`, in order.
    ///
    /// - Parameters:
    ///   - expected: The states that should have been delivered since the last look.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func expect(
        _ expected: [State],
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let actual = log.takeUnseen()
        guard actual != expected else { return }
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        reportFailure(StateMismatch(expected: expected, actual: actual).description, at: location)
    }
}

/// The message of a failed state assertion: what was expected, what arrived, and where they first differ.
struct StateMismatch<State> {
    let expected: [State]
    let actual: [State]

    var description: String {
        var lines: [String] = []
        if expected.count != actual.count {
            lines.append("expected \(expected.count) state(s), but \(actual.count) arrived")
        } else {
            lines.append("the states that arrived differ from the expected ones")
        }
        for index in 0..<max(expected.count, actual.count) {
            let label = expected.count == 1 && actual.count == 1 ? "state" : "state #\(index + 1)"
            switch (index < expected.count ? expected[index] : nil, index < actual.count ? actual[index] : nil) {
            case (let wanted?, let got?):
                guard let difference = describeDifference(between: wanted, and: got, root: "state") else { continue }
                lines.append("\(label) (expected → actual):")
                lines.append(contentsOf: difference.split(separator: "\n").map { "  \($0)" })
            case (let wanted?, nil):
                lines.append("\(label) missing: \(wanted)")
            case (nil, let got?):
                lines.append("\(label) unexpected: \(got)")
            case (nil, nil):
                break
            }
        }
        return lines.joined(separator: "\n")
    }
}
