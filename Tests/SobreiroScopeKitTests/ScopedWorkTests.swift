import ScopeKit
import Sobreiro
import SobreiroPrimitives
import SobreiroScopeKit
import Testing

@Suite("B2: work scoped to an activation")
@MainActor
struct ScopedWorkTests {
    @Test(
        "B2: a subscription to another model runs while active, stops while inactive, and resyncs on reactivation",
        arguments: ["method", "closure"])
    func upstreamSubscription(form: String) {
        let upstream = ViewModel(initialState: Feed())
        let model = FeedModel { model, activation in
            if form == "method" {
                model.subscribe(to: upstream, onChange: FeedModel.upstreamDidChange).store(in: activation)
            } else {
                model.subscribe(to: upstream) { upstream in model.write { $0.count = upstream.count } }
                    .store(in: activation)
            }
        }
        let root = RootScope()
        let behavior = Behavior()
        behavior.bind(model)
        root.host(behavior)

        upstream.write { $0.count = 1 }
        #expect(model.state.count == 1)

        behavior.detach()
        upstream.write { $0.count = 2 }
        #expect(model.state.count == 1, "upstream changes do not reach an inactive model")
        #expect(upstream.subscriberCount == 0)

        root.host(behavior)
        #expect(model.state.count == 2, "resynced with the upstream's current state")
        upstream.write { $0.count = 3 }
        #expect(model.state.count == 3)
    }

    @Test("B2: a view subscribed in an activation renders only while active")
    func viewSubscription() {
        let view = FeedView()
        let model = FeedModel { model, activation in model.subscribe(view: view).store(in: activation) }
        let root = RootScope()
        let behavior = Behavior()
        behavior.bind(model)
        root.host(behavior)
        model.write { $0.count = 1 }

        behavior.detach()
        model.write { $0.count = 2 }

        #expect(view.history.map(\.count) == [0, 1])
        root.host(behavior)
        #expect(view.history.map(\.count) == [0, 1, 2])
    }

    @Test("B2: a task of an activation is cancelled when it ends, and no task outlives it")
    func taskEndsWithActivation() async {
        let live = LiveCount()
        let never = Gate<Int>()
        let model = FeedModel { _, activation in
            live.enter()
            activation.task {
                defer { live.leave() }
                _ = await never.wait()
            }
        }
        let root = RootScope()
        let behavior = Behavior()
        behavior.bind(model)
        root.host(behavior)
        #expect(live.value == 1)

        behavior.detach()

        await withDeadline { await live.until(0) }
        #expect(live.value == 0)
    }

    @Test("B2: a closure that captures the model strongly leaves no cycle after detach")
    func strongCaptureLeavesNoCycle() {
        let upstream = ViewModel(initialState: Feed())
        let root = RootScope()
        weak var weakModel: FeedModel?
        do {
            let behavior = Behavior()
            let model = FeedModel { model, activation in
                // Strong captures of the model in an upstream's handler and in a stored cancellable.
                model.subscribe(to: upstream) { upstream in model.write { $0.count = upstream.count } }
                    .store(in: activation)
                AnyCancellable { _ = model.state }.store(in: activation)
            }
            weakModel = model
            behavior.bind(model)
            root.host(behavior)
            upstream.write { $0.count = 1 }
            #expect(model.state.count == 1)
            behavior.detach()
        }
        #expect(weakModel == nil)
        #expect(upstream.subscriberCount == 0)
    }

    @Test("misuse: work given to an activation that has ended is cancelled at once")
    func storingIntoAnEndedActivation() {
        var kept: Activation<FeedModel>?
        let model = FeedModel { _, activation in kept = activation }
        let root = RootScope()
        let behavior = Behavior()
        behavior.bind(model)
        root.host(behavior)
        behavior.detach()
        let activation = try! #require(kept)
        #expect(!activation.isActive)

        let cancelled = Locked(false)
        AnyCancellable { cancelled.withLock { $0 = true } }.store(in: activation)

        #expect(cancelled.withLock { $0 })
        kept = nil  // it holds the model, whose closure holds this variable
    }

    @Test("B2: each activation is new; the work of the previous one is gone")
    func eachActivationIsNew() {
        var activations: [Activation<FeedModel>] = []
        let model = FeedModel { _, activation in activations.append(activation) }
        let root = RootScope()
        let behavior = Behavior()
        behavior.bind(model)
        root.host(behavior)
        behavior.detach()
        root.host(behavior)

        #expect(activations.count == 2)
        #expect(activations[0] !== activations[1])
        #expect(activations.map(\.isActive) == [false, true])
        #expect(activations.allSatisfy { $0.model === model })
        activations = []  // they hold the model, whose closure holds this array
    }
}
