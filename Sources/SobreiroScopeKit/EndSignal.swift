import Sobreiro
import SobreiroPrimitives

/// Actions that run once, from any thread, when an activation ends; an action added after that runs at once.
///
/// An action leaves the signal when the registration returned for it is released, so that what comes and goes
/// during a long activation (an iterator of its states, made and dropped) leaves nothing behind in the signal.
package final class EndSignal: Sendable {
    private struct Actions {
        var nextKey = 0
        var byKey: [Int: @Sendable () -> Void] = [:]
    }

    /// `nil` once fired.
    private let actions = Locked<Actions?>(Actions())

    init() {}

    /// Runs `action` when the signal fires, or now if it has fired.
    ///
    /// - Returns: What removes `action` from the signal when it is released, or `nil` if `action` already ran.
    ///   Keep it for as long as the action is wanted.
    func onFire(_ action: @escaping @Sendable () -> Void) -> Registration? {
        let key = actions.withLock { actions -> Int? in
            guard let key = actions?.nextKey else { return nil }
            actions?.nextKey += 1
            actions?.byKey[key] = action
            return key
        }
        guard let key else {
            action()
            return nil
        }
        return Registration(signal: self, key: key)
    }

    /// Whether ``fire()`` has run.
    var hasFired: Bool {
        actions.withLock { $0 == nil }
    }

    /// The actions waiting for the signal.
    package var pendingActionCount: Int {
        actions.withLock { $0?.byKey.count ?? 0 }
    }

    /// Runs the actions added so far; later ones run as they are added.
    func fire() {
        let pending = actions.withLock { actions in
            defer { actions = nil }
            return actions?.byKey ?? [:]
        }
        for action in pending.values { action() }
    }

    private func remove(_ key: Int) {
        let removed = actions.withLock { $0?.byKey.removeValue(forKey: key) }
        withExtendedLifetime(removed) {}  // released here, after unlocking
    }

    /// Keeps one action in its signal; releasing it removes the action.
    final class Registration: Sendable {
        private let signal: EndSignal
        private let key: Int

        fileprivate init(signal: EndSignal, key: Int) {
            self.signal = signal
            self.key = key
        }

        deinit {
            signal.remove(key)
        }
    }
}
