extension StateRecorder {
    /// Waits for the next state not looked at yet, and returns it.
    ///
    /// Returns at once if one was delivered already. The wait suspends, and holds up no thread. `timeout` is a
    /// safety net, far longer than a delivery takes even on a busy machine: if no state arrives by then, the test
    /// fails at this line and the result is `nil`, so a test never hangs here.
    ///
    /// - Parameters:
    ///   - timeout: The safety net: how long to wait for a state to be delivered before failing.
    ///   - isolation: The caller's actor, where the wait runs; leave the default.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    /// - Returns: The state, or `nil` after the timeout.
    @discardableResult
    public func next(
        timeout: Duration = .seconds(30),
        isolation: isolated (any Actor)? = #isolation,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async -> State? {
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        return await awaitState(timeout: timeout, isolation: isolation, location: location) { _ in true }
    }

    /// Waits for a state that matches `predicate`, looking at every state delivered up to it, and returns it.
    ///
    /// States delivered before the matching one count as looked at. If none matches within `timeout`, the test
    /// fails at this line, listing the states that did arrive.
    ///
    /// A recorder sees what a view sees, and a view may not see every intermediate state: states are coalesced
    /// for a recorder fed on the main actor from other threads, and for any recorder while a thread other than
    /// the writer delivers (another writer, or a render that writes back). Then wait for a condition that the
    /// final state meets too, such as `$0.stock >= 12` rather than `$0.stock == 12`.
    ///
    /// ```swift
    /// let loaded = await states.first { $0.items.count == 3 }
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: The safety net: how long to wait for a matching state before failing.
    ///   - predicate: Whether a state is the one to wait for.
    ///   - isolation: The caller's actor, where the wait runs; leave the default.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    /// - Returns: The matching state, or `nil` after the timeout.
    @discardableResult
    public func first(
        timeout: Duration = .seconds(30),
        isolation: isolated (any Actor)? = #isolation,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        where predicate: (State) -> Bool
    ) async -> State? {
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        return await awaitState(timeout: timeout, isolation: isolation, location: location, matching: predicate)
    }

    /// Awaits the next state and asserts that it is `expected`.
    ///
    /// - Parameters:
    ///   - expected: The state that should be delivered next.
    ///   - timeout: The safety net: how long to wait for it before failing.
    ///   - isolation: The caller's actor, where the wait runs; leave the default.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func expectNext(
        _ expected: State,
        timeout: Duration = .seconds(30),
        isolation: isolated (any Actor)? = #isolation,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        guard
            let actual = await next(
                timeout: timeout,
                isolation: isolation,
                fileID: fileID,
                filePath: filePath,
                line: line,
                column: column
            ),
            actual != expected
        else { return }
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        reportFailure(StateMismatch(expected: [expected], actual: [actual]).description, at: location)
    }

    /// Looks at each state not looked at yet, waiting for more up to `timeout`, until one matches `predicate`.
    private func awaitState(
        timeout: Duration,
        isolation: isolated (any Actor)?,
        location: CallerLocation,
        matching predicate: (State) -> Bool
    ) async -> State? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var looked: [State] = []
        while true {
            while let state = log.takeNext() {
                looked.append(state)
                if predicate(state) { return state }
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero, await log.waitForEntry(upTo: remaining) else {
                let seen = looked.isEmpty ? "none" : looked.map { "\($0)" }.joined(separator: ", ")
                reportFailure("no matching state was delivered within \(timeout); states seen: \(seen)", at: location)
                return nil
            }
        }
    }
}
