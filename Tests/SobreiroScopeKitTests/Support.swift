import Dispatch
import Foundation
import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

struct Feed: ViewState {
    var level = 0
    var query = ""
    var results: [String] = []
    var failure: String?
    var count = 0
}

/// Hooks in the order they ran, from models and behaviors alike.
@MainActor
final class Journal {
    private(set) var entries: [String] = []

    func record(_ entry: String) {
        entries.append(entry)
    }

    func clear() {
        entries = []
    }
}

/// A bound model that records its lifecycle and runs `onActive` at each activation.
final class FeedModel: ViewModel<Feed>, ScopedViewModel, @unchecked Sendable {
    let journal: Journal
    let onActive: @MainActor (FeedModel, Activation<FeedModel>) -> Void

    @MainActor
    init(
        _ state: Feed = Feed(),
        journal: Journal = Journal(),
        onActive: @escaping @MainActor (FeedModel, Activation<FeedModel>) -> Void = { _, _ in }
    ) {
        self.journal = journal
        self.onActive = onActive
        super.init(initialState: state)
    }

    func didLoad() {
        journal.record("model.didLoad")
    }

    func didBecomeActive(_ activation: Activation<FeedModel>) {
        journal.record("model.didBecomeActive")
        onActive(self, activation)
    }

    func didBecomeInactive() {
        journal.record("model.didBecomeInactive")
    }

    func upstreamDidChange(_ upstream: Feed) {
        write { $0.count = upstream.count }
    }
}

/// A behavior that records its own hooks into a journal.
final class JournalBehavior: Behavior {
    let journal: Journal

    init(journal: Journal) {
        self.journal = journal
    }

    override func willActivate(cancellables: inout Set<AnyCancellable>) { journal.record("behavior.willActivate") }
    override func willDeactivate() { journal.record("behavior.willDeactivate") }
    override func didDeactivate() { journal.record("behavior.didDeactivate") }
}

/// A view that records what it renders.
final class FeedView: StatefulView, @unchecked Sendable {
    private let recorded = Locked<[Feed]>([])
    var history: [Feed] { recorded.withLock { $0 } }

    func render(state: Feed) {
        recorded.withLock { $0.append(state) }
    }
}

/// A value that asynchronous operations wait for and the test hands over, so that tests decide when each
/// operation finishes, with no timing involved.
final class Gate<Value: Sendable>: Sendable {
    private struct Contents {
        var value: Value?
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
        /// Waiters cancelled before they started waiting.
        var cancelled: Set<Int> = []
    }

    private let contents = Locked(Contents())

    /// Waits for the value. If `honoursCancellation` and the task is cancelled first, returns `nil` at once.
    func wait(honoursCancellation: Bool = true) async -> Value? {
        let id = contents.withLock { contents in
            contents.nextID += 1
            return contents.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let value = contents.withLock { contents -> Value?? in
                    if let value = contents.value { return value }
                    if contents.cancelled.contains(id) { return .some(nil) }
                    contents.waiters[id] = continuation
                    return nil
                }
                if let value { continuation.resume(returning: value) }
            }
        } onCancel: {
            guard honoursCancellation else { return }
            let waiter = contents.withLock { contents in
                contents.cancelled.insert(id)
                return contents.waiters.removeValue(forKey: id)
            }
            waiter?.resume(returning: nil)
        }
    }

    /// Hands `value` to every waiter, present and future.
    func open(_ value: Value) {
        let waiters = contents.withLock { contents in
            contents.value = value
            defer { contents.waiters = [:] }
            return contents.waiters.values
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }
}

/// Counts operations that are running, and lets a test wait for a given count.
final class LiveCount: Sendable {
    private struct Contents {
        var count = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let contents = Locked(Contents())

    var value: Int { contents.withLock { $0.count } }

    func enter() { change(by: 1) }

    func leave() { change(by: -1) }

    private func change(by delta: Int) {
        let reached = contents.withLock { contents in
            contents.count += delta
            let count = contents.count
            defer { contents.waiters.removeAll { $0.count == count } }
            return contents.waiters.filter { $0.count == count }
        }
        for waiter in reached { waiter.continuation.resume() }
    }

    /// Returns once exactly `count` operations are running.
    func until(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let isReached = contents.withLock { contents in
                if contents.count == count { return true }
                contents.waiters.append((count, continuation))
                return false
            }
            if isReached { continuation.resume() }
        }
    }
}

/// Runs `body`, failing the test instead of hanging it if `body` has not returned within `seconds`: a safety net
/// against a hang, which no run reaches however busy the machine.
func withDeadline<R: Sendable>(
    seconds: Double = patience,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async -> R
) async -> R? {
    let result = await withTaskGroup(of: R?.self) { group in
        group.addTask { await body() }
        // The alarm rings from a thread of its own: a dispatch worker, like a task, may wait behind a stuck pool.
        let finished = DispatchSemaphore(value: 0)
        group.addTask {
            let alarm = Gate<Bool>()
            Thread {
                if finished.wait(timeout: .now() + seconds) == .timedOut { alarm.open(true) }
            }.start()
            _ = await alarm.wait()
            return nil
        }
        let first = await group.next() ?? nil
        finished.signal()
        group.cancelAll()
        return first
    }
    #expect(result != nil, "did not finish within \(seconds) s", sourceLocation: sourceLocation)
    return result
}

/// The first state of `model` that matches `predicate`, the current one included; `nil` after the deadline.
func firstState<S: ViewState>(
    of model: ViewModel<S>,
    sourceLocation: SourceLocation = #_sourceLocation,
    where predicate: @escaping @Sendable (S) -> Bool
) async -> S? {
    await withDeadline(sourceLocation: sourceLocation) {
        for await state in model.states where predicate(state) { return state }
        return nil
    } ?? nil
}

/// Hosts a behavior bound to `model` under `root`, so that the model is active, and returns the behavior. The root
/// gives the tree the test kit's view of its effects, which the waits for them need; its clock stays the default.
@MainActor
@discardableResult
func hostBound(_ model: some ScopedViewModel, under root: RootScope) -> Behavior {
    root.provide(EffectTrackingKey.self, TestEffectTracking.shared)
    let behavior = Behavior()
    behavior.bind(model)
    root.host(behavior)
    return behavior
}
