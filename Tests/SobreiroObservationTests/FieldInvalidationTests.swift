import Sobreiro
import SobreiroObservation
import Testing

@Suite("Per-field invalidation")
@MainActor
struct FieldInvalidationTests {
    @Test("O2: reading one field and changing another invalidates nothing; changing the field read invalidates once")
    func onlyTheFieldReadInvalidates() {
        let model = ScreenModel()
        let screen = model.observed()
        let invalidations = Invalidations()
        #expect(invalidations.track { screen.title } == "")

        model.write { $0.items = [Item(id: 1, name: "cork")] }
        model.write { $0.query = "oak" }
        #expect(invalidations.count == 0)
        #expect(screen.items == [Item(id: 1, name: "cork")], "the object has the state, only its reader is spared")

        model.write { $0.title = "Forest" }
        #expect(invalidations.count == 1)
        #expect(screen.title == "Forest")
    }

    @Test("O2: a write that leaves the field read equal invalidates nothing")
    func equalWriteDoesNotInvalidate() {
        let model = ScreenModel()
        let screen = model.observed()
        let invalidations = Invalidations()
        model.write { $0.title = "Forest" }
        invalidations.track { screen.title }

        model.write { $0.title = "Forest" }
        model.write {
            $0.title = "Forest"; $0.count += 1
        }
        #expect(invalidations.count == 0)
    }

    @Test("O2: the whole state invalidates its reader at every new state")
    func wholeStateInvalidatesOnAnyChange() {
        let model = ScreenModel()
        let screen = model.observed()
        let invalidations = Invalidations()
        #expect(invalidations.track { screen.state } == ScreenState())

        model.write { $0.count = 1 }
        #expect(invalidations.count == 1)
        #expect(screen.state.count == 1)
    }

    @Test("O2: a chain of properties depends on its first field; a key path read depends on its value alone")
    func nestedPaths() {
        let model = ScreenModel()
        let screen = model.observed()
        let chained = Invalidations()
        let exact = Invalidations()
        #expect(chained.track { screen.header.title } == "Oaks")
        #expect(exact.track { screen[\.header.title] } == "Oaks")

        model.write { $0.count = 1 }
        #expect(chained.count == 0)
        model.write { $0.header.subtitle = "of Alentejo" }
        #expect(chained.count == 1, "the chain read `header`, which changed")
        #expect(exact.count == 0, "the title did not change")

        model.write { $0.header.title = "Cork oaks" }
        #expect(exact.count == 1)
        #expect(screen.header.title == "Cork oaks")
    }

    @Test("O2: an optional field invalidates its reader when it changes, and only then")
    func optionals() {
        let model = ScreenModel()
        let screen = model.observed()
        let invalidations = Invalidations()
        #expect(invalidations.track { screen.selection?.name } == nil)

        model.write { $0.title = "Forest" }
        #expect(invalidations.count == 0)
        model.write { $0.selection = Item(id: 7, name: "holm oak") }
        #expect(invalidations.count == 1)
        #expect(screen.selection?.name == "holm oak")
    }

    @Test("O2: reading items.count depends on the items; a key path read of the count on the count alone")
    func collections() {
        let model = ScreenModel()
        model.write { $0.items = [Item(id: 1, name: "cork")] }
        let screen = model.observed()
        let throughItems = Invalidations()
        let throughCount = Invalidations()
        #expect(throughItems.track { screen.items.count } == 1)
        #expect(throughCount.track { screen[\.items.count] } == 1)

        model.write { $0.title = "Forest" }
        #expect(throughItems.count == 0)
        model.write { $0.items[0].name = "stripped cork" }
        #expect(throughItems.count == 1)
        #expect(throughCount.count == 0)

        model.write { $0.items.append(Item(id: 2, name: "acorn")) }
        #expect(throughCount.count == 1)
        #expect(screen[\.items.count] == 2)
    }

    @Test("O2: a field that is not Equatable invalidates its reader at every new state")
    func nonEquatableFieldInvalidatesOnAnyChange() {
        let model = ScreenModel()
        let screen = model.observed()
        let invalidations = Invalidations()
        #expect(invalidations.track { screen.opaque.token } == 0)

        model.write { $0.title = "Forest" }
        #expect(invalidations.count == 1)
    }

    @Test("O2: every reader of a changed field is invalidated, and each once")
    func everyReaderOnce() {
        let model = ScreenModel()
        let screen = model.observed()
        let first = Invalidations()
        let second = Invalidations()
        let other = Invalidations()
        first.track { screen.title }
        second.track { (screen.title, screen.count) }
        other.track { screen.query }

        model.write {
            $0.title = "Forest"; $0.count = 3
        }
        #expect(first.count == 1)
        #expect(second.count == 1)
        #expect(other.count == 0)
    }
}
