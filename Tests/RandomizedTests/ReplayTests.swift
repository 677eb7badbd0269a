import SobreiroScopeKit
import Testing

/// Sequences worth keeping: each replays through the whole harness, so every invariant is checked after every
/// step, and each aims at one corner the random runs reach only now and then.
@Suite("Replayed sequences")
@MainActor
struct ReplayTests {
    @Test("D5, V3: a render that unsubscribes a view later in the same round keeps the round from it")
    func renderUnsubscribesAnotherView() async {
        await replay(operations: [
            .makeView(view: 0, of: .model(0), reaction: .unsubscribe(view: 1)),
            .makeView(view: 1, of: .model(0), reaction: .none),
            .makeView(view: 2, of: .projection(0), reaction: .unsubscribe(view: 1)),
            .subscribe(view: 0),
            .subscribe(view: 1),
            .subscribe(view: 2),
            .write(model: 0, value: 4),
            .subscribe(view: 1),
            .write(model: 0, value: 5),
        ])
    }

    @Test("D5, V1: a view subscribed to a model from a render nested in that model's delivery renders right after")
    func subscribeInsideNestedDelivery() async {
        // Model 2's delivery reaches model 1's handler, whose write renders view 3, which subscribes view 5 to
        // model 2: a subscribe inside a delivery of model 2, through another model.
        await replay(operations: [
            .makeView(view: 3, of: .model(1), reaction: .subscribe(view: 5)),
            .follow(follower: 1, publisher: 2, form: .closure),
            .makeView(view: 5, of: .model(2), reaction: .none),
            .subscribe(view: 3),
            .write(model: 2, value: 2),
        ])
    }

    @Test("V1, V3: a view that subscribes itself again from a render keeps one subscription and one token")
    func renderSubscribesItself() async {
        await replay(operations: [
            .makeView(view: 3, of: .model(1), reaction: .subscribe(view: 3)),
            .subscribe(view: 3),
            .write(model: 1, value: 2),
            .cancelToken(view: 3),
            .write(model: 1, value: 3),
        ])
    }

    @Test("C4, D5: models that follow each other, and views that write back into them, settle")
    func cyclesSettle() async {
        await replay(operations: [
            .follow(follower: 0, publisher: 1, form: .closure),
            .follow(follower: 1, publisher: 0, form: .method),
            .follow(follower: 2, publisher: 2, form: .projection),
            .follow(follower: 2, publisher: 0, form: .projection),
            .makeView(view: 0, of: .model(0), reaction: .echo(into: 1)),
            .makeView(view: 1, of: .model(1), reaction: .echo(into: 0)),
            .makeView(view: 2, of: .projection(2), reaction: .echo(into: 2)),
            .subscribe(view: 0),
            .subscribe(view: 1),
            .subscribe(view: 2),
            .nestedWrite(model: 0, value: 3),
            .write(model: 1, value: 1),
            .mutate(model: 2, delta: 1),
            .throwingWrite(model: 0, value: 5),
            .cancelFollowToken(index: 0),
            .recreateModel(model: 1),
            .write(model: 0, value: 4),
        ])
    }

    @Test("S6, S8: a hook that attaches a node under its own descendant is refused; queued moves run in order")
    func hooksChangeTheTree() async {
        await replay(operations: [
            .makeNode(node: 0, model: .none),
            .makeNode(node: 1, model: .bound(upstream: 0, strategy: .cancelOnNewState)),
            .makeNode(node: 2, model: .none),
            .attach(node: 1, to: .node(0)),
            .arm(node: 1, hook: .willActivate, action: .attach(node: 0, to: .node(1))),
            .arm(node: 0, hook: .willActivate, action: .attach(node: 2, to: .node(1))),
            .arm(node: 2, hook: .willAttach, action: .detach(node: 1)),
            .attach(node: 0, to: .root),
            .attach(node: 1, to: .node(2)),
            .attach(node: 2, to: .node(1)),
        ])
    }

    @Test("B2, B3: a bound model follows its upstream and answers requests only while active, and resyncs")
    func boundModelWorksWhileActive() async {
        await replay(operations: [
            .makeNode(node: 0, model: .bound(upstream: 1, strategy: .cancelOnNewState)),
            .makeView(view: 0, of: .scopedModel(node: 0), reaction: .none),
            .subscribe(view: 0),
            .request(node: 0, value: 2),
            .attach(node: 0, to: .root),
            .write(model: 1, value: 3),
            .request(node: 0, value: 4),
            .storeWhileActive(node: 0),
            .detach(node: 0),
            .request(node: 0, value: 5),
            .write(model: 1, value: 1),
            .host(node: 0, in: .root),
            .forgetNode(node: 0),
            .replaceRoot,
        ])
    }
}
