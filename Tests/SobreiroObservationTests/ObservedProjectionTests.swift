import Sobreiro
import SobreiroObservation
import TestSupport
import Testing

@Suite("Observed projections")
@MainActor
struct ObservedProjectionTests {
    @Test("O1: an observed projection starts on the projected value and follows only its changes")
    func followsTheProjectedValue() {
        let model = ScreenModel()
        let header = model.map(\.header).observed()
        let invalidations = Invalidations()
        #expect(invalidations.track { header.state } == Header())

        model.write { $0.items = [Item(id: 1, name: "cork")] }
        #expect(invalidations.count == 0)
        model.write { $0.header.subtitle = "of Alentejo" }
        #expect(invalidations.count == 1)
        #expect(header.subtitle == "of Alentejo")
    }

    @Test("O2: an observed projection invalidates per field too")
    func projectionFields() {
        let model = ScreenModel()
        let header = model.map(\.header).observed()
        let invalidations = Invalidations()
        invalidations.track { header.title }

        model.write { $0.header.subtitle = "of Alentejo" }
        #expect(invalidations.count == 0)
        model.write { $0.header.title = "Cork oaks" }
        #expect(invalidations.count == 1)
    }

    @Test("O1: a projection to a plain value is observed from background writes, ending on the latest")
    func derivedValueFromBackground() async {
        let model = ScreenModel()
        let count = model.map(\.items.count).observed()
        #expect(count.state == 0)

        #expect(
            runElsewhereHoldingMainQueue {
                for id in 0..<100 { model.write { $0.items.append(Item(id: id, name: "acorn")) } }
            }
        )
        await drainMainQueue()
        #expect(count.state == 100)
    }

    @Test("O1: a projection observed inside a render of its model starts on the current value")
    func observedInsideDelivery() {
        let model = ScreenModel()
        let follower = ProjectionOpener(model: model)
        model.subscribe(view: follower)
        model.write { $0.title = "Forest" }
        #expect(follower.openedTitle == "Forest")
        #expect(follower.opened?.state == "Forest")
    }
}

/// Observes a projection of its model from its own render, where the first delivery of a new subscription waits
/// for the current one to end.
@MainActor
private final class ProjectionOpener: MainActorStatefulView {
    let model: ScreenModel
    var opened: ObservedState<String>?
    var openedTitle: String?

    init(model: ScreenModel) {
        self.model = model
    }

    func render(state: ScreenState) {
        guard state.title == "Forest", opened == nil else { return }
        let title = model.map(\.title).observed()
        opened = title
        openedTitle = title.state
    }
}
