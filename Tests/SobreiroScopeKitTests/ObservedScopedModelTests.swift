import ScopeKit
import Sobreiro
import SobreiroObservation
import SobreiroScopeKit
import Testing

@Suite("An observed scoped model")
@MainActor
struct ObservedScopedModelTests {
    @Test("O1: an observed bound model follows its states across activations; releasing the object ends it")
    func followsAcrossActivations() {
        // Given a bound model whose activation writes, and an object observing it
        let model = FeedModel { model, _ in model.write { $0.level += 1 } }
        let root = RootScope()
        let subscribersBefore = model.subscriberCount
        weak var released: ObservedState<Feed>?
        do {
            let observed = model.observed()
            released = observed
            #expect(model.subscriberCount == subscribersBefore + 1)

            // When the model is activated, deactivated, written while inactive and activated again
            let behavior = hostBound(model, under: root)
            #expect(observed.level == 1, "the activation's write reached the object")
            behavior.detach()
            model.write { $0.query = "while inactive" }
            #expect(observed.query == "while inactive", "the object follows the model whether it is active or not")
            root.host(behavior)
            #expect(observed.level == 2)
            behavior.detach()
        }

        // Then releasing the object ends its subscription, and nothing keeps it alive
        #expect(released == nil)
        #expect(model.subscriberCount == subscribersBefore)
    }
}
