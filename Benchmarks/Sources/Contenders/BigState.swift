import Sobreiro
import Synchronization

/// A state that holds an array of `count` items, of which each write changes one.
public struct Items: ViewState {
    public var items: [Int]

    public init(count: Int) {
        items = Array(repeating: 0, count: count)
    }
}

/// One view of a big state: it reads one item, as a row would.
final class ItemsView: StatefulView, @unchecked Sendable {
    var seen = 0

    func render(state: Items) {
        seen &+= state.items[0]
    }
}

/// Writes one item of a state of many: Sobreiro and a floor that keeps the same promises.
public protocol BigStateContender: AnyObject {
    static var name: String { get }
    /// A state of `count` items, all zero, and one view of it.
    init(count: Int)
    /// Sets item `index` to `value`.
    func write(_ value: Int, at index: Int)
}

/// A model of the big state with one view; each write changes one item in place.
public final class SobreiroBigState: BigStateContender {
    public static let name = "Sobreiro"
    let model: ViewModel<Items>
    let view = ItemsView()

    public init(count: Int) {
        model = ViewModel(initialState: Items(count: count))
        model.subscribe(view: view)
    }

    public func write(_ value: Int, at index: Int) {
        model.write { $0.items[index] = value }
    }
}

/// The least a design can do that keeps Sobreiro's promises for a big state: a mutex around it, the committed state
/// kept apart from the one being changed, so that a reader never sees half a change (V6) — which makes a change to
/// one item copy the array once — one comparison that skips an equal state (T6), and a weakly held view rendered
/// after unlocking.
public final class BigStateFloor: BigStateContender, @unchecked Sendable {
    public static let name = "Floor"

    private struct Guarded: @unchecked Sendable {
        var state: Items
        weak var view: ItemsView?
    }

    private let guarded: Mutex<Guarded>
    private let view = ItemsView()

    public init(count: Int) {
        guarded = Mutex(Guarded(state: Items(count: count), view: view))
    }

    public func write(_ value: Int, at index: Int) {
        let change = guarded.withLock { guarded -> Guarded? in
            let committed = guarded.state
            guarded.state.items[index] = value
            guard guarded.state != committed else { return nil }
            return guarded
        }
        guard let change, let view = change.view else { return }
        view.render(state: change.state)
    }
}
