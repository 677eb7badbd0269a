import SobreiroScopeKit

/// How many slots each kind of object has. Operations name slots, never objects, so that any subsequence of a
/// sequence is still a valid sequence: an operation on an empty slot, or on a slot whose object is gone, does
/// nothing. That is what lets the shrinker drop operations freely.
enum Slots {
    static let models = 3
    static let views = 6
    static let nodes = 5
}

/// One step of a randomized run, written the way it is rendered: a failing sequence prints as a list of these,
/// ready to paste into `replay(operations:)`.
enum Operation: Equatable, Sendable {
    // Transactions on the plain models.
    case write(model: Int, value: Int)
    case update(model: Int, value: Int)
    case mutate(model: Int, delta: Int)
    case throwingWrite(model: Int, value: Int)
    case nestedWrite(model: Int, value: Int)
    case recreateModel(model: Int)

    // Views.
    case makeView(view: Int, of: ViewSource, reaction: Reaction)
    case subscribe(view: Int)
    case unsubscribe(view: Int)
    case cancelToken(view: Int)
    case cancelStaleToken(view: Int)
    case dropView(view: Int)

    // Models following models.
    case follow(follower: Int, publisher: Int, form: FollowForm)
    case unfollow(follower: Int, publisher: Int)
    case cancelFollowToken(index: Int)

    // The scope tree.
    case makeNode(node: Int, model: NodeModel)
    case attach(node: Int, to: Host)
    case host(node: Int, in: Host)
    case detach(node: Int)
    case evict(node: Int, from: Host)
    case attachRoot(to: Int)
    case arm(node: Int, hook: Hook, action: HookAction)
    case storeWhileActive(node: Int)
    case forgetNode(node: Int)
    case replaceRoot

    // The model bound to a node.
    case request(node: Int, value: Int)
}

/// What a view renders.
enum ViewSource: Equatable, Sendable {
    /// The whole state of a plain model.
    case model(Int)
    /// A projection (`map`) of a plain model's state: its value and the stamp of that value.
    case projection(Int)
    /// The whole state of the model bound to a node.
    case scopedModel(node: Int)
}

/// What a view does, re-entrantly, from inside its `render`.
enum Reaction: Equatable, Sendable {
    case none
    /// Writes the rendered value into `echoes[view]` of a plain model.
    case echo(into: Int)
    /// Subscribes another view, once.
    case subscribe(view: Int)
    /// Unsubscribes another view, once.
    case unsubscribe(view: Int)
}

/// How a model follows another.
enum FollowForm: Equatable, Sendable {
    /// `subscribe(to:onChange:)` with a closure that captures the follower weakly.
    case closure
    /// `subscribe(to:onChange:)` with an unapplied method.
    case method
    /// `subscribe(to: publisher.map(…), onChange:)`.
    case projection
}

/// Whether a node has a view model bound to it, and how that model follows its upstream.
enum NodeModel: Equatable, Sendable {
    case none
    case bound(upstream: Int, strategy: EffectStrategy)
}

/// A host named in an operation.
enum Host: Equatable, Sendable {
    case root
    case node(Int)
}

/// A lifecycle hook of a node.
enum Hook: String, CaseIterable, Equatable, Sendable {
    case willAttach, willActivate, willDeactivate, didDeactivate, willDetach, didDetach
}

/// A change of the tree that a node makes from inside one of its hooks, once.
enum HookAction: Equatable, Sendable {
    case attach(node: Int, to: Host)
    case detach(node: Int)
    case evict(node: Int, from: Host)
}

extension Operation {
    /// A random operation. It depends only on `generator`, never on the state of a run, so a longer run of the
    /// same seed starts with the same operations. Every draw is made up front, whichever case wins, which keeps
    /// the code flat.
    static func random(using g: inout SplitMix64) -> Operation {
        let model = g.below(Slots.models)
        let other = g.below(Slots.models)
        let view = g.below(Slots.views)
        let node = g.below(Slots.nodes)
        let value = g.below(6)
        let host = Host.random(using: &g)
        switch g.weightedIndex([25, 22, 8, 38, 7]) {
        case 0:
            switch g.weightedIndex([5, 4, 4, 3, 3, 1]) {
            case 0: return .write(model: model, value: value)
            case 1: return .update(model: model, value: value)
            case 2: return .mutate(model: model, delta: value % 3 - 1)
            case 3: return .throwingWrite(model: model, value: value)
            case 4: return .nestedWrite(model: model, value: value)
            default: return .recreateModel(model: model)
            }
        case 1:
            switch g.weightedIndex([3, 7, 2, 2, 1, 1]) {
            case 0:
                let source = ViewSource.random(using: &g)
                return .makeView(view: view, of: source, reaction: .random(using: &g))
            case 1: return .subscribe(view: view)
            case 2: return .unsubscribe(view: view)
            case 3: return .cancelToken(view: view)
            case 4: return .cancelStaleToken(view: view)
            default: return .dropView(view: view)
            }
        case 2:
            switch g.weightedIndex([5, 2, 2]) {
            case 0:
                let form = [FollowForm.closure, .method, .projection][g.below(3)]
                return .follow(follower: model, publisher: other, form: form)
            case 1: return .unfollow(follower: model, publisher: other)
            default: return .cancelFollowToken(index: value)
            }
        case 3:
            switch g.weightedIndex([9, 24, 6, 8, 5, 2, 12, 5, 3, 1]) {
            case 0: return .makeNode(node: node, model: .random(using: &g))
            case 1: return .attach(node: node, to: host)
            case 2: return .host(node: node, in: host)
            case 3: return .detach(node: node)
            case 4: return .evict(node: node, from: host)
            case 5: return .attachRoot(to: node)
            case 6:
                let hook = Hook.allCases[g.below(Hook.allCases.count)]
                return .arm(node: node, hook: hook, action: .random(using: &g))
            case 7: return .storeWhileActive(node: node)
            case 8: return .forgetNode(node: node)
            default: return .replaceRoot
            }
        default:
            return .request(node: node, value: value)
        }
    }
}

extension ViewSource {
    static func random(using g: inout SplitMix64) -> ViewSource {
        let slot = g.below(Slots.models)
        let node = g.below(Slots.nodes)
        switch g.weightedIndex([5, 2, 2]) {
        case 0: return .model(slot)
        case 1: return .projection(slot)
        default: return .scopedModel(node: node)
        }
    }
}

extension Reaction {
    static func random(using g: inout SplitMix64) -> Reaction {
        let model = g.below(Slots.models)
        let view = g.below(Slots.views)
        switch g.weightedIndex([4, 3, 2, 2]) {
        case 0: return .none
        case 1: return .echo(into: model)
        case 2: return .subscribe(view: view)
        default: return .unsubscribe(view: view)
        }
    }
}

extension NodeModel {
    static func random(using g: inout SplitMix64) -> NodeModel {
        let upstream = g.below(Slots.models)
        let strategy: EffectStrategy = g.chance(50) ? .cancelOnNewState : .continueOnNewState
        return g.chance(50) ? .bound(upstream: upstream, strategy: strategy) : .none
    }
}

extension Host {
    static func random(using g: inout SplitMix64) -> Host {
        let node = g.below(Slots.nodes)
        return g.chance(40) ? .root : .node(node)
    }
}

extension HookAction {
    static func random(using g: inout SplitMix64) -> HookAction {
        let node = g.below(Slots.nodes)
        let host = Host.random(using: &g)
        switch g.weightedIndex([3, 2, 1]) {
        case 0: return .attach(node: node, to: host)
        case 1: return .detach(node: node)
        default: return .evict(node: node, from: host)
        }
    }
}
