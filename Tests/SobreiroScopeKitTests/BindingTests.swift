import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Testing

@Suite("B1: binding a view model to a behavior")
@MainActor
struct BindingTests {
    @Test("B1: one line binds a model; the tree keeps it alive, and detaching and dropping the behavior frees it")
    func treeKeepsTheModelAlive() {
        let root = RootScope()
        weak var weakModel: FeedModel?
        weak var weakBehavior: Behavior?
        weak var weakWork: AnyCancellable?
        do {
            let screen = Scope()
            let model = FeedModel { _, activation in
                let work = AnyCancellable {}
                weakWork = work
                work.store(in: activation)
            }
            weakModel = model
            weakBehavior = screen
            #expect(screen.bind(model) == .bound)
            root.host(screen)
        }
        #expect(weakModel != nil, "the tree keeps the model")
        #expect(weakWork != nil, "and the work of its activation")

        weakBehavior?.detach()
        #expect(weakBehavior == nil)
        #expect(weakModel == nil, "detaching and dropping the behavior releases the model")
        #expect(weakWork == nil, "and its scoped work")
    }

    @Test("B1: the model hears didLoad once, didBecomeActive at each activation, didBecomeInactive at each end")
    func lifecycleHooks() {
        let journal = Journal()
        let root = RootScope()
        let behavior = JournalBehavior(journal: journal)
        behavior.bind(FeedModel(journal: journal))

        root.host(behavior)
        behavior.detach()
        root.host(behavior)
        behavior.detach()

        #expect(
            journal.entries == [
                "behavior.willActivate", "model.didLoad", "model.didBecomeActive",
                "behavior.willDeactivate", "model.didBecomeInactive", "behavior.didDeactivate",
                "behavior.willActivate", "model.didBecomeActive",
                "behavior.willDeactivate", "model.didBecomeInactive", "behavior.didDeactivate",
            ])
    }

    @Test("B1: binding to a behavior that is already active starts the model's first activation at once")
    func bindingWhileActive() {
        let journal = Journal()
        let root = RootScope()
        let behavior = Behavior()
        root.host(behavior)

        behavior.bind(FeedModel(journal: journal))

        #expect(journal.entries == ["model.didLoad", "model.didBecomeActive"])
        behavior.detach()
        #expect(journal.entries.last == "model.didBecomeInactive")
    }

    @Test("B1: a model bound inside its behavior's willActivate starts once in that activation")
    func bindingFromInsideWillActivate() {
        let journal = Journal()
        let behavior = BindsOnActivation(model: FeedModel(journal: journal))

        let root = RootScope()
        root.host(behavior)

        #expect(journal.entries == ["model.didLoad", "model.didBecomeActive"])
    }

    @Test("misuse: binding a model that another living behavior holds is refused and changes nothing")
    func bindingTwiceElsewhereIsRefused() {
        let journal = Journal()
        let model = FeedModel(journal: journal)
        let root = RootScope()
        let first = Behavior()
        let second = Behavior()
        root.host([first, second])

        #expect(first.bind(model) == .bound)
        let result = second.bind(model)

        #expect(result == .refused(.alreadyBoundToAnotherBehavior))
        #expect("\(BindingError.alreadyBoundToAnotherBehavior)".contains("bind a new instance"))
        #expect(journal.entries == ["model.didLoad", "model.didBecomeActive"], "no second lifecycle")
        #expect(first.bind(model) == .bound, "binding to the same behavior again does nothing")
        #expect(journal.entries.count == 2)
    }

    @Test("misuse: once the behavior that held a model is gone, the model can be bound again")
    func bindingAfterTheOwnerIsGone() {
        let model = FeedModel()
        do {
            let first = Behavior()
            first.bind(model)
        }
        #expect(Behavior().bind(model) == .bound)
    }

    @Test("B1: a @MainActor model keeps main-actor state in its hooks")
    func mainActorModel() {
        let root = RootScope()
        let model = MainActorCounterModel()
        let behavior = Behavior()
        behavior.bind(model)

        root.host(behavior)
        behavior.detach()
        root.host(behavior)

        #expect(model.activations == 2)
        #expect(model.loads == 1)
    }
}

@MainActor
final class MainActorCounterModel: ViewModel<Feed>, ScopedViewModel, @unchecked Sendable {
    var activations = 0
    var loads = 0

    init() {
        super.init(initialState: Feed())
    }

    func didLoad() {
        loads += 1
    }

    func didBecomeActive(_ activation: Activation<MainActorCounterModel>) {
        activations += 1
    }
}

/// Binds its model from inside its own first activation.
final class BindsOnActivation: Behavior {
    let model: FeedModel

    init(model: FeedModel) {
        self.model = model
    }

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        bind(model)
    }
}
