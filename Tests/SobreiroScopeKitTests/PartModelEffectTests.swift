import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport
import Testing

private struct Lookup: ViewState {
    var query = ""
    var result = ""
    var note = ""
}

private struct LookupScreen: ViewState {
    var lookup = Lookup()
    var visits = 0
}

private final class LookupScreenModel: ViewModel<LookupScreen>, @unchecked Sendable {
    init() {
        super.init(initialState: LookupScreen())
    }
}

/// A part model with an effect: each query is looked up, and the result written back into the parent's state.
private final class LookupModel: ViewModel<Lookup>, ScopedViewModel, @unchecked Sendable {
    let answers: Gate<String>

    init(of screen: LookupScreenModel, answers: Gate<String>) {
        self.answers = answers
        super.init(\.lookup, of: screen)
    }

    func didBecomeActive(_ activation: Activation<LookupModel>) {
        let answers = answers
        activation.effect(.onChange(of: \.query)) { query in
            query.isEmpty ? "" : "\(query): \(await answers.wait() ?? "cancelled")"
        } reduce: { state, result in
            state.result = result.get()
        }
    }
}

@Suite("Part models with effects")
@MainActor
struct PartModelEffectTests {
    @Test("W1: a part model's effect follows the parent's changes of the part, and writes back through the parent")
    func effectWriteBackThroughTheParent() async {
        let screen = LookupScreenModel()
        let answers = Gate<String>()
        let lookup = TestHost(LookupModel(of: screen, answers: answers))
        let parent = StateRecorder(subscribedTo: screen)
        parent.expect(LookupScreen())

        lookup.model.write { $0.query = "oak" }
        // The parent changes the part's query while the lookup for "oak" waits: that lookup is stale, and
        // the parent's change starts the part model's effect again, as the part model's own write would.
        screen.write { $0.lookup.query = "cork" }
        answers.open("tree")
        await lookup.settleEffects(timeout: patientWait)
        #expect(screen.state.lookup == Lookup(query: "cork", result: "cork: tree"))
        #expect(lookup.model.state == screen.state.lookup)
        parent.expect(
            LookupScreen(lookup: Lookup(query: "oak")),
            LookupScreen(lookup: Lookup(query: "cork")),
            LookupScreen(lookup: Lookup(query: "cork", result: "cork: tree")))
        lookup.expect(
            Lookup(query: "oak"), Lookup(query: "cork"), Lookup(query: "cork", result: "cork: tree"))

        // A change of the parent elsewhere, or of the part where the effect does not look, does not stop a run.
        screen.write {
            $0.visits += 1
            $0.lookup.note = "seen"
        }
        lookup.expect(Lookup(query: "cork", result: "cork: tree", note: "seen"))
        _ = parent.history
    }
}
