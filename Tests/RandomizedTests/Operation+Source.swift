import SobreiroScopeKit

// Every operation prints as the Swift expression that builds it, so a shrunk failing sequence can be pasted
// into `replay(operations:)` as an ordinary test.

extension Operation: CustomStringConvertible {
    var description: String {
        switch self {
        case .write(let model, let value): ".write(model: \(model), value: \(value))"
        case .update(let model, let value): ".update(model: \(model), value: \(value))"
        case .mutate(let model, let delta): ".mutate(model: \(model), delta: \(delta))"
        case .throwingWrite(let model, let value): ".throwingWrite(model: \(model), value: \(value))"
        case .nestedWrite(let model, let value): ".nestedWrite(model: \(model), value: \(value))"
        case .recreateModel(let model): ".recreateModel(model: \(model))"
        case .makeView(let view, let source, let reaction):
            ".makeView(view: \(view), of: \(source), reaction: \(reaction))"
        case .subscribe(let view): ".subscribe(view: \(view))"
        case .unsubscribe(let view): ".unsubscribe(view: \(view))"
        case .cancelToken(let view): ".cancelToken(view: \(view))"
        case .cancelStaleToken(let view): ".cancelStaleToken(view: \(view))"
        case .dropView(let view): ".dropView(view: \(view))"
        case .follow(let follower, let publisher, let form):
            ".follow(follower: \(follower), publisher: \(publisher), form: .\(form))"
        case .unfollow(let follower, let publisher): ".unfollow(follower: \(follower), publisher: \(publisher))"
        case .cancelFollowToken(let index): ".cancelFollowToken(index: \(index))"
        case .makeNode(let node, let model): ".makeNode(node: \(node), model: \(model))"
        case .attach(let node, let host): ".attach(node: \(node), to: \(host))"
        case .host(let node, let host): ".host(node: \(node), in: \(host))"
        case .detach(let node): ".detach(node: \(node))"
        case .evict(let node, let host): ".evict(node: \(node), from: \(host))"
        case .attachRoot(let node): ".attachRoot(to: \(node))"
        case .arm(let node, let hook, let action): ".arm(node: \(node), hook: .\(hook.rawValue), action: \(action))"
        case .storeWhileActive(let node): ".storeWhileActive(node: \(node))"
        case .forgetNode(let node): ".forgetNode(node: \(node))"
        case .replaceRoot: ".replaceRoot"
        case .request(let node, let value): ".request(node: \(node), value: \(value))"
        }
    }
}

extension ViewSource: CustomStringConvertible {
    var description: String {
        switch self {
        case .model(let slot): ".model(\(slot))"
        case .projection(let slot): ".projection(\(slot))"
        case .scopedModel(let node): ".scopedModel(node: \(node))"
        }
    }
}

extension Reaction: CustomStringConvertible {
    var description: String {
        switch self {
        case .none: ".none"
        case .echo(let model): ".echo(into: \(model))"
        case .subscribe(let view): ".subscribe(view: \(view))"
        case .unsubscribe(let view): ".unsubscribe(view: \(view))"
        }
    }
}

extension NodeModel: CustomStringConvertible {
    var description: String {
        switch self {
        case .none: ".none"
        case .bound(let upstream, let strategy):
            ".bound(upstream: \(upstream), strategy: \(strategy == .cancelOnNewState ? ".cancelOnNewState" : ".continueOnNewState"))"
        }
    }
}

extension Host: CustomStringConvertible {
    var description: String {
        switch self {
        case .root: ".root"
        case .node(let slot): ".node(\(slot))"
        }
    }
}

extension HookAction: CustomStringConvertible {
    var description: String {
        switch self {
        case .attach(let node, let host): ".attach(node: \(node), to: \(host))"
        case .detach(let node): ".detach(node: \(node))"
        case .evict(let node, let host): ".evict(node: \(node), from: \(host))"
        }
    }
}
