import Sobreiro

/// Counts the operations of the effects of one model that are running, and those of them parked on a test
/// clock, so that a test can wait until every effect has settled.
///
/// An operation runs with its activity in ``current``; a test clock parks that activity while the operation
/// sleeps on it. The effects have settled when every running operation is parked.
package final class EffectActivity: Sendable {
    /// The activity of the effect operation running in the current task, if any.
    @TaskLocal package static var current: EffectActivity?

    private struct Counts {
        var running = 0
        var parked = 0
        var waiters: [Int: (condition: Condition, continuation: CheckedContinuation<Bool, Never>)] = [:]
        var waits = 0

        func holds(_ condition: Condition) -> Bool {
            switch condition {
            // An operation may sleep in several child tasks at once: each sleep parks it once.
            case .settled: running <= parked
            case .stopped: running == 0
            }
        }
    }

    /// What a test waits for.
    package enum Condition: Sendable {
        /// Every running operation is parked on a test clock.
        case settled
        /// No operation runs.
        case stopped
    }

    private let counts = Locked(Counts())

    /// The activity of each model whose effects exist. An activity removes its entry as it goes, so the registry
    /// holds only live activities. An activity can outlive its model, while an operation that ignores cancellation
    /// still runs; its entry then names a dead model, and a new model at the same address gets an activity of its
    /// own instead.
    private static let byModel = Locked<[ObjectIdentifier: WeakActivity]>([:])

    /// The model this activity counts for.
    private let model: ObjectIdentifier

    private init(model: ObjectIdentifier) {
        self.model = model
    }

    deinit {
        let model = model
        Self.byModel.withLock { entries in
            // A newer activity may have taken the entry since this one's last reference went.
            if entries[model]?.activity == nil { entries[model] = nil }
        }
    }

    /// The activity of `model`'s effects while any of them exists.
    package static func of(_ model: AnyObject) -> EffectActivity? {
        byModel.withLock { entries in
            guard let entry = entries[ObjectIdentifier(model)], entry.model === model else { return nil }
            return entry.activity
        }
    }

    /// The activity of `model`'s effects, created if none exists.
    static func forModel(_ model: AnyObject) -> EffectActivity {
        byModel.withLock { entries in
            let key = ObjectIdentifier(model)
            if let entry = entries[key], entry.model === model, let activity = entry.activity { return activity }
            let activity = EffectActivity(model: key)
            entries[key] = WeakActivity(activity: activity, model: model)
            return activity
        }
    }

    func begin() { change { $0.running += 1 } }

    func end() { change { $0.running -= 1 } }

    /// The current operation waits on a test clock.
    package func park() { change { $0.parked += 1 } }

    /// The current operation was woken by a test clock.
    package func unpark() { change { $0.parked -= 1 } }

    /// The number of operations running now.
    package var running: Int {
        counts.withLock { $0.running }
    }

    private func change(_ update: (inout Counts) -> Void) {
        let ready = counts.withLock { counts in
            update(&counts)
            let ready = counts.waiters.filter { counts.holds($0.value.condition) }
            for number in ready.keys { counts.waiters[number] = nil }
            return ready.values.map(\.continuation)
        }
        for waiter in ready { waiter.resume(returning: true) }
    }

    /// Waits until `condition` holds.
    ///
    /// - Parameters:
    ///   - condition: What to wait for.
    ///   - expire: Given a function that ends the wait; it calls it to give up.
    /// - Returns: `true` if the condition holds, `false` if the wait was given up.
    package func wait(until condition: Condition, expire: (@escaping @Sendable () -> Void) -> Void) async -> Bool {
        await withCheckedContinuation { continuation in
            let number = counts.withLock { counts -> Int? in
                guard !counts.holds(condition) else { return nil }
                counts.waits += 1
                counts.waiters[counts.waits] = (condition, continuation)
                return counts.waits
            }
            guard let number else {
                continuation.resume(returning: true)
                return
            }
            expire { [self] in
                counts.withLock { $0.waiters.removeValue(forKey: number) }?.continuation.resume(returning: false)
            }
        }
    }
}

private struct WeakActivity {
    weak var activity: EffectActivity?
    /// The model the activity counts for, to tell it from a later model at the same address.
    weak var model: AnyObject?
}
