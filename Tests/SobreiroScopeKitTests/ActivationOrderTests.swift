import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Testing

/// A behavior that subscribes a view to its bound model in `willActivate`.
private final class SubscribesInWillActivate: Behavior {
    let model: FeedModel
    let view: FeedView

    init(model: FeedModel, view: FeedView) {
        self.model = model
        self.view = view
    }

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        model.subscribe(view: view).store(in: &cancellables)
    }
}

@Suite("B1: where a behavior subscribes the views of its bound model")
@MainActor
struct ActivationOrderTests {
    /// A model whose activation writes a new state at once, as one that starts loading does.
    private func loadingModel() -> FeedModel {
        FeedModel { model, _ in model.write { $0.level = 1 } }
    }

    @Test("B1: a view subscribed in willActivate first renders the state from before the model's didBecomeActive")
    func willActivateRunsBeforeTheModelActivates() {
        let model = loadingModel()
        let view = FeedView()
        let screen = SubscribesInWillActivate(model: model, view: view)
        screen.bind(model)

        let root = RootScope()
        root.host(screen)

        #expect(view.history.map(\.level) == [0, 1], "the old state, then the one didBecomeActive wrote")
    }

    @Test("B1: a view subscribed in a child's willActivate renders only the state after the model's activation")
    func childSubscribesAfterTheModelActivates() {
        let model = loadingModel()
        let view = FeedView()
        let screen = Scope()
        screen.bind(model)
        screen.host(SubscribesInWillActivate(model: model, view: view))

        let root = RootScope()
        root.host(screen)

        #expect(view.history.map(\.level) == [1])
    }
}
