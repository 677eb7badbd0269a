import ScopeKit
import Synchronization
import Testing

/// Records lifecycle hooks in order and checks the tree's invariants after every one of them.
@MainActor
final class Journal {
    var entries: [String] = []
    var violations: [String] = []
    weak var root: Scope?

    func record(_ entry: String) {
        entries.append(entry)
        checkInvariants(after: entry)
    }

    func take() -> [String] {
        defer { entries = [] }
        return entries
    }

    /// No node is active under an inactive host, and every child names its parent as host.
    private func checkInvariants(after entry: String) {
        guard let root else { return }
        func visit(_ node: Behavior) {
            if node.state == .active, let host = node.host, host.state != .active {
                violations.append("after \(entry): active under an inactive host")
            }
            guard let scope = node as? Scope else { return }
            for child in scope.children {
                if child.host !== scope { violations.append("after \(entry): child does not name its host") }
                if child.state == .detached { violations.append("after \(entry): hosted child is detached") }
                visit(child)
            }
        }
        visit(root)
    }
}

/// A hook that a test can set to act from inside a callback.
typealias Hook = @MainActor (Behavior) -> Void

@MainActor
final class Node: Scope {
    let name: String
    let journal: Journal
    var hooks: [String: Hook] = [:]
    var onActivate: ((inout Set<AnyCancellable>) -> Void)?

    init(_ name: String, journal: Journal) {
        self.name = name
        self.journal = journal
    }

    private func log(_ hook: String) {
        journal.record("\(name).\(hook)")
        hooks[hook]?(self)
    }

    override func willAttach() { log("willAttach") }
    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        let name = name
        let journal = journal
        AnyCancellable { MainActor.assumeIsolated { journal.record("\(name).cancel") } }.store(in: &cancellables)
        onActivate?(&cancellables)
        log("willActivate")
    }
    override func willDeactivate() { log("willDeactivate") }
    override func didDeactivate() { log("didDeactivate") }
    override func willDetach() { log("willDetach") }
    override func didDetach() { log("didDetach") }
}

/// Counts how often the work it hands out is cancelled, and how many of its cancel actions are still alive.
final class CancelCounter: Sendable {
    private let cancellations = Atomic<Int>(0)
    private let lives = Lives()
    var count: Int { cancellations.load(ordering: .relaxed) }
    var live: Int { lives.count.load(ordering: .relaxed) }

    func cancellable() -> AnyCancellable {
        let token = LifetimeToken(lives)
        return AnyCancellable { [self] in
            withExtendedLifetime(token) { _ = cancellations.add(1, ordering: .relaxed) }
        }
    }

    private final class Lives: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Counted in `lives` for as long as it exists.
    private final class LifetimeToken: Sendable {
        private let lives: Lives

        init(_ lives: Lives) {
            self.lives = lives
            lives.count.add(1, ordering: .relaxed)
        }

        deinit {
            lives.count.subtract(1, ordering: .relaxed)
        }
    }
}
