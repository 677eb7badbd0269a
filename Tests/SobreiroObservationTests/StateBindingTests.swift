import Sobreiro
import SobreiroObservation
import Testing

@Suite("State bindings")
@MainActor
struct StateBindingTests {
    @Test("O3: a binding reads the field and writes through the model, which updates the object at once")
    func writesThroughTheModel() {
        let model = ScreenModel()
        let screen = model.observed()
        let query = screen.binding(\.query) { model.search(for: $0) }
        let invalidations = Invalidations()
        #expect(invalidations.track { query.value } == "")

        model.write { $0.title = "Forest" }
        #expect(invalidations.count == 0, "the binding reads only its field")

        query.value = "oak"
        #expect(model.state.query == "oak")
        #expect(query.value == "oak")
        #expect(screen.query == "oak")
        #expect(invalidations.count == 1)
    }

    @Test("O3: a binding writes through a transaction that the caller names")
    func writesThroughATransaction() {
        let model = ScreenModel()
        let screen = model.observed()
        let count = screen.binding(\.count) { count in model.write { $0.count = min(count, 10) } }

        count.set(42)
        #expect(count.get() == 10, "the model decides; the binding shows what it committed")
        #expect(screen.count == 10)
    }

    @Test("O3: the object never stores a value that the model did not commit")
    func objectNeverSetsItsOwnState() {
        let model = ScreenModel()
        let screen = model.observed()
        let ignored = screen.binding(\.query) { _ in }

        ignored.value = "oak"
        #expect(ignored.value == "")
        #expect(screen.query == "")
    }
}
