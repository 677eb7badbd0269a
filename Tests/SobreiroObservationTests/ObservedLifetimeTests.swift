import Sobreiro
import SobreiroObservation
import TestSupport
import Testing

@Suite("Observed lifetime")
@MainActor
struct ObservedLifetimeTests {
    @Test("the object, its model and a binding are released with the last reference")
    func nothingLeaks() {
        weak var weakModel: ScreenModel?
        weak var weakScreen: ObservedState<ScreenState>?
        do {
            let model = ScreenModel()
            let screen = model.observed()
            let query = screen.binding(\.query) { model.search(for: $0) }
            query.value = "oak"
            weakModel = model
            weakScreen = screen
        }
        #expect(weakScreen == nil)
        #expect(weakModel == nil)
    }

    @Test("the object keeps its model alive, and releases it with itself")
    func objectHoldsModel() {
        weak var weakModel: ScreenModel?
        var screen: ObservedState<ScreenState>? = {
            let model = ScreenModel()
            weakModel = model
            return model.observed()
        }()
        #expect(weakModel != nil)
        weakModel?.write { $0.title = "Forest" }
        #expect(screen?.title == "Forest")

        screen = nil
        #expect(weakModel == nil)
    }

    @Test("an observed projection keeps its model alive, and releases it with itself")
    func projectionObjectHoldsModel() {
        weak var weakModel: ScreenModel?
        var header: ObservedState<Header>? = {
            let model = ScreenModel()
            weakModel = model
            return model.map(\.header).observed()
        }()
        #expect(weakModel != nil)
        #expect(weakModel?.subscriberCount == 1)
        #expect(header?.title == "Oaks")

        header = nil
        #expect(weakModel == nil)
    }

    @Test("releasing the object ends its subscription; the model does not keep it")
    func releasingEndsSubscription() {
        let model = ScreenModel()
        weak var weakScreen: ObservedState<ScreenState>?
        weak var weakHeader: ObservedState<Header>?
        do {
            let screen = model.observed()
            let header = model.map(\.header).observed()
            weakScreen = screen
            weakHeader = header
            #expect(model.subscriberCount == 2)
        }
        #expect(weakScreen == nil)
        #expect(weakHeader == nil)
        #expect(model.subscriberCount == 0)
        model.write { $0.title = "Forest" }
        #expect(model.subscriberCount == 0)
    }

    @Test("an object released while a background write waits for the main actor is not kept, nor called")
    func releasedWhileHopWaits() async {
        let model = ScreenModel()
        weak var weakScreen: ObservedState<ScreenState>?
        do {
            let screen = model.observed()
            weakScreen = screen
            #expect(runElsewhereHoldingMainQueue { model.write { $0.title = "Forest" } })
        }
        #expect(weakScreen == nil)
        await drainMainQueue()
        #expect(model.subscriberCount == 0)
    }
}
