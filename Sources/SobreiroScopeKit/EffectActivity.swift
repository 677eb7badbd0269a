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

    private static let byModel = Locked<(entries: [ObjectIdentifier: Entry], pruneAt: Int)>(([:], 64))

    /// What is known of a model's effects.
    package enum Lookup {
        /// The model never declared an effect.
        case none
        /// The model declared effects, and none of them exists any more.
        case ended
        /// The activity of the model's current effects.
        case current(EffectActivity)
    }

    /// What is known of the effects of `model`.
    package static func of(_ model: AnyObject) -> Lookup {
        byModel.withLock { registry in
            guard let entry = registry.entries[ObjectIdentifier(model)], entry.model === model else { return .none }
            return entry.activity.map(Lookup.current) ?? .ended
        }
    }

    /// The activity of `model`'s effects, created if it does not exist.
    static func forModel(_ model: AnyObject) -> EffectActivity {
        byModel.withLock { registry in
            let key = ObjectIdentifier(model)
            if let entry = registry.entries[key], entry.model === model, let activity = entry.activity {
                return activity
            }
            // Entries of released models go in batches, when the registry has doubled: amortised O(1) per effect.
            if registry.entries.count >= registry.pruneAt {
                registry.entries = registry.entries.filter { $0.value.model != nil }
                registry.pruneAt = max(64, registry.entries.count * 2)
            }
            let activity = EffectActivity()
            registry.entries[key] = Entry(model: model, activity: activity)
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

/// A model that declared effects, and the activity of those that exist, both held weakly.
private struct Entry {
    weak var model: AnyObject?
    weak var activity: EffectActivity?
}
