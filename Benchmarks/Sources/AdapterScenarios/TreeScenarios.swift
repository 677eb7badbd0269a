import ScopeKit
import Sobreiro
import SobreiroScopeKit

// The tree scenarios that `TreeBenchmarks` times and `AdapterProbe` counts: a stack and a list of children from
// state (`hostChildren(following:)`) against the hand-written `host`/`evict` loop that makes the same changes, and a
// dependency read against a stored property.

/// An element of a routed collection: a screen of a stack, or a row of a list.
public struct Row: Identifiable, Equatable, Sendable {
    public let id: Int
    public var title: String

    public init(id: Int, title: String = "") {
        self.id = id
        self.title = title
    }
}

/// The state a route follows.
public struct Rows: ViewState {
    public var rows: [Row]

    public init(rows: [Row]) {
        self.rows = rows
    }
}

/// The two states one operation of a route scenario goes through, and back.
public enum RouteScenario: String, CaseIterable, Sendable {
    /// A stack of 9 screens: push a tenth, then pop it. One operation is a push and a pop.
    case stack = "stack-of-10"
    /// A list of 1 000 rows whose middle row is replaced by a row of another identity. One operation is one change.
    case list = "list-of-1000"

    /// The states an operation alternates between: `first` holds the child that `second` replaces or removes.
    public var states: (first: [Row], second: [Row]) {
        switch self {
        case .stack:
            let base = (0..<9).map { Row(id: $0) }
            return (base, base + [Row(id: 9)])
        case .list:
            let base = (0..<1_000).map { Row(id: $0) }
            var changed = base
            changed[500] = Row(id: 1_500)
            return (base, changed)
        }
    }
}

/// What a route scenario needs: the model, the scope the children live in, and what keeps the tree alive.
@MainActor
public struct RouteSetup {
    public let model: ViewModel<Rows>
    public let scope: Scope
    public let root: RootScope
    private let first: [Row]
    private let second: [Row]
    /// The identity only `first` holds, and the one only `second` holds (or `nil`, for a push).
    private let onlyInFirst: Int?
    private let onlyInSecond: Int
    /// The children the floor hosts by hand, by identity.
    private var hosted: [Int: Behavior] = [:]

    /// An active scope that follows `model.map(\.rows)` with `hostChildren(following:)`, when `routed`; otherwise
    /// one that hosts the same children by hand, and a model with no subscriber.
    public init(_ scenario: RouteScenario, routed: Bool) {
        (first, second) = scenario.states
        onlyInFirst = scenario == .list ? 500 : nil
        onlyInSecond = scenario == .list ? 1_500 : 9
        model = ViewModel(initialState: Rows(rows: first))
        scope = Scope()
        root = RootScope()
        if routed {
            scope.hostChildren(following: model.map(\.rows)) { _ in AnonymousBehavior { _ in } }
        } else {
            for row in first {
                let child = AnonymousBehavior { _ in }
                hosted[row.id] = child
                scope.host(child)
            }
        }
        root.host(scope)
    }

    /// One change through the route: the model's write alone, to the second state or back to the first.
    public func routedChange(toSecond: Bool) {
        let rows = toSecond ? second : first
        model.write { $0.rows = rows }
    }

    /// The floor of one change: the same write, and the `evict` and `host` calls of a hand-written loop that knows
    /// the change.
    public mutating func floorChange(toSecond: Bool) {
        let rows = toSecond ? second : first
        model.write { $0.rows = rows }
        let (leaving, coming) = toSecond ? (onlyInFirst, Optional(onlyInSecond)) : (Optional(onlyInSecond), onlyInFirst)
        if let leaving, let child = hosted.removeValue(forKey: leaving) { scope.evict(child) }
        if let coming {
            let child = AnonymousBehavior { _ in }
            hosted[coming] = child
            scope.host(child)
        }
    }

    /// How many children the scope hosts, to check that the route and the floor agree.
    public var childCount: Int { scope.children.count }
}

/// A value that scopes provide, as a service would be.
public final class Service: Sendable {
    public let identifier: Int

    public init(identifier: Int) {
        self.identifier = identifier
    }
}

/// The key the dependency scenario reads; it has no default, so a read must find its provider.
public enum ServiceKey: DependencyKey {
    public typealias Value = Service
}

/// A behavior that holds the service in a stored property: the floor of a dependency read.
@MainActor
public final class ServiceHolder: Behavior {
    public let service: Service

    public init(service: Service) {
        self.service = service
    }
}

/// A reader `depth` levels under the scope that provides `ServiceKey`, which sits under an active root, and a
/// holder of the same service; both attached.
@MainActor
public func makeDependencyReaders(depth: Int) -> (reader: Behavior, holder: ServiceHolder, root: RootScope) {
    let root = RootScope()
    let provider = Scope()
    let service = Service(identifier: 1)
    provider.provide(ServiceKey.self, service)
    root.host(provider)
    var parent: Scope = provider
    for _ in 1..<depth {
        let next = Scope()
        parent.host(next)
        parent = next
    }
    let reader = AnonymousBehavior { _ in }
    parent.host(reader)
    let holder = ServiceHolder(service: service)
    parent.host(holder)
    return (reader, holder, root)
}
