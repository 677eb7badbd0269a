import Dispatch
import Observation
import Sobreiro
import Synchronization
import TestSupport

struct Header: Equatable, Sendable {
    var title = "Oaks"
    var subtitle = ""
}

struct Item: Equatable, Sendable {
    var id: Int
    var name: String
}

/// A field that cannot be compared: an observer that reads it must be invalidated by every new state.
struct Opaque: Sendable {
    var token = 0
}

struct ScreenState: ViewState {
    var title = ""
    var query = ""
    var count = 0
    var header = Header()
    var items: [Item] = []
    var selection: Item?
    var opaque = Opaque()

    static func == (lhs: ScreenState, rhs: ScreenState) -> Bool {
        lhs.title == rhs.title && lhs.query == rhs.query && lhs.count == rhs.count && lhs.header == rhs.header
            && lhs.items == rhs.items && lhs.selection == rhs.selection && lhs.opaque.token == rhs.opaque.token
    }
}

final class ScreenModel: ViewModel<ScreenState>, @unchecked Sendable {
    init() {
        super.init(initialState: ScreenState())
    }

    func search(for query: String) {
        write { $0.query = query }
    }
}

/// Counts the invalidations of what an observer read through `withObservationTracking`.
///
/// `track(_:)` observes once, as SwiftUI does for one body: the first change ends the tracking. `follow(_:)`
/// tracks again from inside each invalidation, so that it counts every announcement of what it reads.
@MainActor
final class Invalidations: Sendable {
    private let counted = Atomic<Int>(0)

    var count: Int { counted.load(ordering: .relaxed) }

    /// Reads through `read` and counts the first change of what it read.
    @discardableResult
    func track<Value>(_ read: @escaping @MainActor () -> Value) -> Value {
        withObservationTracking(read) {
            self.counted.add(1, ordering: .relaxed)
        }
    }

    /// Reads `object` through `read` and counts every change of what it read, tracking again from inside each
    /// invalidation, then calling `onChange`. Observation invalidates before the change, so `onChange` still sees
    /// the old state.
    ///
    /// The object is held weakly: the registration that waits for its next change lives in the object's own
    /// registrar, and would otherwise keep the object alive for good.
    func follow<Object: AnyObject & Sendable, Value>(
        _ object: Object,
        _ read: @escaping @MainActor (Object) -> Value,
        onChange: @escaping @MainActor () -> Void = {}
    ) {
        _ = withObservationTracking { [weak object] in
            object.map(read)
        } onChange: { [weak object] in
            self.counted.add(1, ordering: .relaxed)
            // Observation calls this synchronously, inside the object's update on the main actor.
            MainActor.assumeIsolated {
                if let object { self.follow(object, read, onChange: onChange) }
                onChange()
            }
        }
    }
}

/// A plain view that holds the thread delivering to it inside its render of the first state matching `isHeld`,
/// until the test releases `hold`: meanwhile that thread stays the model's deliverer, in the middle of a round.
final class HeldRender: StatefulView, Sendable {
    let hold = Hold()
    private let isHeld: @Sendable (ScreenState) -> Bool

    init(holdingOn isHeld: @escaping @Sendable (ScreenState) -> Bool) {
        self.isHeld = isHeld
    }

    func render(state: ScreenState) {
        if isHeld(state) { hold.holdOnce() }
    }
}

/// Suspends until `done`, from `onAnotherThread`, is signalled: the work it stands for returned.
@MainActor
func finished(_ done: DispatchSemaphore) async -> Bool {
    await eventually { done.wait(timeout: .now()) == .success }
}

/// A plain view that takes about 20 µs over each render, so that a thread that writes the model without pause is
/// its deliverer most of the time when the main actor writes.
final class SlowView: StatefulView, Sendable {
    func render(state: ScreenState) {
        let start = DispatchTime.now().uptimeNanoseconds
        while DispatchTime.now().uptimeNanoseconds - start < 20_000 {}
    }
}
