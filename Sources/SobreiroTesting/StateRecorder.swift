public import Sobreiro
import SobreiroPrimitives

/// A view that records every state a view model delivers, so that a test can assert each one.
///
/// The recorder is a `StatefulView` like any other, so it sees exactly what a real view sees: the current state
/// when it subscribes, then each committed change that differs from the previous one. Assert the states step by
/// step with ``expect(_:fileID:filePath:line:column:)-([State],_,_,_,_)``, await states that tasks and effects
/// write with ``next(timeout:isolation:fileID:filePath:line:column:)`` and ``first(timeout:isolation:fileID:filePath:line:column:where:)``,
/// or read the whole ``history``.
///
/// ```swift
/// @Test func loadingThenLoaded() {
///     let model = ListViewModel()
///     let states = StateRecorder(subscribedTo: model)
///     states.expect(.loading)
///     model.didLoad(["oak"])
///     states.expect(.loaded(["oak"]))
/// }
/// ```
///
/// Once a test asserts step by step, the recorder is exhaustive: every state must be looked at, through an
/// assertion, an awaited state or ``history``. A state delivered after the last look then fails the test when
/// the recorder is released, at the line that created it. A mismatch prints the path of each differing field,
/// first difference first: `state.items[2].title: "oak" → "cork"`. Failures go to Swift Testing or XCTest, whichever runs the test.
/// The recorder is safe to use from any thread.
public final class StateRecorder<State: ViewState>: StatefulView, Sendable {
    private struct Contents {
        var history: [State] = []
        /// How many states of `history` were looked at.
        var seen = 0
        /// Whether the test asserts step by step, which makes every state count.
        var isStepping = false
        /// Tasks waiting for the next render, by the number of their wait.
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var waits = 0
    }

    private let contents = Locked(Contents())
    private let createdAt: CallerLocation
    /// The main-actor object that feeds this recorder, kept alive by it; see `init(subscribedOnMainActorTo:)` and
    /// `init(observing:)`.
    let forwarder = Locked<AnyObject?>(nil)

    /// Creates a recorder that is not subscribed to anything yet.
    ///
    /// - Parameters:
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public init(
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        createdAt = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Creates a recorder and subscribes it to `model`, which renders the current state into it at once.
    ///
    /// - Parameters:
    ///   - model: The view model to record. It holds the recorder weakly: keep the recorder alive.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public convenience init(
        subscribedTo model: ViewModel<State>,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(fileID: fileID, filePath: filePath, line: line, column: column)
        model.subscribe(view: self)
    }

    /// Creates a recorder that sees what a main-actor view of `model` sees, and subscribes it.
    ///
    /// The recorder is fed by a `MainActorStatefulView`, so it records the states that such a view renders:
    /// the current state at once, then the changes, on the main actor, coalesced when they come from other
    /// threads. Await them with ``next(timeout:isolation:fileID:filePath:line:column:)`` or
    /// ``first(timeout:isolation:fileID:filePath:line:column:where:)``.
    ///
    /// ```swift
    /// let rendered = StateRecorder(subscribedOnMainActorTo: model)
    /// Task.detached { model.write { $0.count = 3 } }
    /// await rendered.first { $0.count == 3 }
    /// ```
    ///
    /// - Parameters:
    ///   - model: The view model to record.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    @MainActor
    public convenience init(
        subscribedOnMainActorTo model: ViewModel<State>,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(fileID: fileID, filePath: filePath, line: line, column: column)
        let forwarder = MainActorForwarder(recorder: self)
        self.forwarder.withLock { $0 = forwarder }
        model.subscribe(view: forwarder)
    }

    deinit {
        let unseen = contents.withLock { $0.isStepping ? Array($0.history[$0.seen...]) : [] }
        guard !unseen.isEmpty else { return }
        reportFailure(
            "\(unseen.count) state(s) delivered but never asserted:\n"
                + unseen.map { "  \($0)" }.joined(separator: "\n"),
            at: createdAt
        )
    }

    /// Every state rendered so far, oldest first. Reading it counts as looking at all of them.
    public var history: [State] {
        contents.withLock { contents in
            contents.seen = contents.history.count
            return contents.history
        }
    }

    /// The last state rendered, or `nil` before the first render.
    public var lastState: State? {
        contents.withLock { $0.history.last }
    }

    /// Appends `state` to ``history``.
    ///
    /// - Parameter state: The state the view model rendered.
    public func render(state: State) {
        let waiters = contents.withLock { contents in
            contents.history.append(state)
            defer { contents.waiters = [:] }
            return contents.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

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
        let actual = takeUnseen()
        guard actual != expected else { return }
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        reportFailure(StateMismatch(expected: expected, actual: actual).description, at: location)
    }

    /// Waits for the next state not looked at yet, and returns it.
    ///
    /// Returns at once if one was delivered already. If none arrives within `timeout`, the test fails at this
    /// line and the result is `nil`: a test never hangs here.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait for a state to be delivered.
    ///   - isolation: The caller's actor, where the wait runs; leave the default.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    /// - Returns: The state, or `nil` after the timeout.
    @discardableResult
    public func next(
        timeout: Duration = .seconds(5),
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
    ///   - timeout: How long to wait for a matching state.
    ///   - predicate: Whether a state is the one to wait for.
    ///   - isolation: The caller's actor, where the wait runs; leave the default.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    /// - Returns: The matching state, or `nil` after the timeout.
    @discardableResult
    public func first(
        timeout: Duration = .seconds(5),
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
    ///   - timeout: How long to wait for it.
    ///   - isolation: The caller's actor, where the wait runs; leave the default.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func expectNext(
        _ expected: State,
        timeout: Duration = .seconds(5),
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

    private func takeUnseen() -> [State] {
        contents.withLock { contents in
            contents.isStepping = true
            defer { contents.seen = contents.history.count }
            return Array(contents.history[contents.seen...])
        }
    }

    private func awaitState(
        timeout: Duration,
        isolation: isolated (any Actor)?,
        location: CallerLocation,
        matching predicate: (State) -> Bool
    ) async -> State? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var looked: [State] = []
        while true {
            while let state = takeOne() {
                looked.append(state)
                if predicate(state) { return state }
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero, await waitForRender(upTo: remaining) else {
                let seen = looked.isEmpty ? "none" : looked.map { "\($0)" }.joined(separator: ", ")
                reportFailure("no matching state was delivered within \(timeout); states seen: \(seen)", at: location)
                return nil
            }
        }
    }

    private func takeOne() -> State? {
        contents.withLock { contents in
            contents.isStepping = true
            guard contents.seen < contents.history.count else { return nil }
            defer { contents.seen += 1 }
            return contents.history[contents.seen]
        }
    }

    /// Suspends until a state is rendered (`true`) or `duration` passes (`false`).
    private func waitForRender(upTo duration: Duration, isolation: isolated (any Actor)? = #isolation) async -> Bool {
        let timedOut = Locked(false)
        await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
            let number = contents.withLock { contents -> Int? in
                guard contents.seen == contents.history.count else { return nil }
                contents.waits += 1
                contents.waiters[contents.waits] = continuation
                return contents.waits
            }
            guard let number else {
                continuation.resume()
                return
            }
            expiring(after: duration)({ [weak self] in
                let expired = self?.contents.withLock { contents -> CheckedContinuation<Void, Never>? in
                    contents.waiters.removeValue(forKey: number)
                }
                guard let expired else { return }
                timedOut.withLock { $0 = true }
                expired.resume()
            })
        }
        return !timedOut.withLock { $0 }
    }
}

/// A main-actor view that hands what it renders to a recorder.
@MainActor
private final class MainActorForwarder<State: ViewState>: MainActorStatefulView {
    weak var recorder: StateRecorder<State>?

    init(recorder: StateRecorder<State>) {
        self.recorder = recorder
    }

    func render(state: State) {
        recorder?.render(state: state)
    }
}
