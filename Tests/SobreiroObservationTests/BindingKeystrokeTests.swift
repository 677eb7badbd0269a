import Dispatch
import Sobreiro
import SobreiroObservation
import Synchronization
import TestSupport
import Testing

/// The observed objects a binding can read from: a model's own, and a projection's.
enum ObservedKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case model = "a model's observed object"
    case projection = "a projection's observed object"

    var testDescription: String { rawValue }

    /// A binding of `model`'s query, read from an observed object of this kind, and the object, to keep.
    @MainActor
    func queryBinding(of model: ScreenModel) -> (StateBinding<String>, AnyObject) {
        switch self {
        case .model:
            let screen = model.observed()
            return (screen.binding(\.query) { model.search(for: $0) }, screen)
        case .projection:
            let query = model.map(\.query).observed()
            return (query.binding(\.self) { model.search(for: $0) }, query)
        }
    }
}

@Suite("A binding keeps every keystroke")
@MainActor
struct BindingKeystrokeTests {
    /// While another thread is the model's deliverer (here a background write whose delivery a plain view holds
    /// up), a control types: it appends each keystroke to the value it reads back, as a text field does. Every
    /// keystroke must stay, on a projection's object as on the model's.
    @Test(
        "O3: a binding typed into on the main actor while another thread delivers keeps every keystroke",
        arguments: ObservedKind.allCases
    )
    func typingWhileAnotherThreadDelivers(into kind: ObservedKind) async {
        let model = ScreenModel()
        let (query, object) = kind.queryBinding(of: model)
        let held = HeldRender { $0.count == 1 }
        model.subscribe(view: held)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        #expect(await held.hold.isHeld())

        for key in "acorns" {
            query.value += String(key)
        }
        #expect(model.state.query == "acorns", "keystrokes were lost")
        #expect(query.value == "acorns", "the control reads back a stale value right after its own write")

        held.hold.release()
        #expect(await finished(writer))
        await drainMainQueue()
        #expect(query.value == "acorns", "the object did not end on the latest state")
        withExtendedLifetime(object) {}
    }

    /// Another thread writes the model without pause, and a slow plain view makes it the deliverer most of the
    /// time, while the control types 300 keystrokes, yielding the main actor between them as an app's run loop
    /// does.
    @Test(
        "O3: 300 keystrokes typed while another thread keeps writing the model are all kept",
        .serialized,  // one writing thread at a time: each keeps a core busy while it runs
        arguments: ObservedKind.allCases
    )
    func typingWhileAnotherThreadKeepsWriting(into kind: ObservedKind) async {
        let model = ScreenModel()
        let (query, object) = kind.queryBinding(of: model)
        let slow = SlowView()
        model.subscribe(view: slow)
        let stop = Atomic<Bool>(false)
        // Bounded, so that a main actor held up by other tests does not leave it spinning.
        let writer = onAnotherThread {
            for _ in 0..<20_000 where !stop.load(ordering: .relaxed) { model.write { $0.count += 1 } }
        }

        let keystrokes = 300
        for _ in 0..<keystrokes {
            query.value += "k"
            await Task.yield()
        }
        stop.store(true, ordering: .relaxed)
        #expect(await finished(writer))

        let kept = model.state.query.count
        #expect(kept == keystrokes, "\(keystrokes - kept) of \(keystrokes) keystrokes lost")
        withExtendedLifetime((object, slow)) {}
    }
}
