import Sobreiro

/// The state every model of a randomized run holds.
///
/// Only operations change `value`, `request` and `count`; every other field is derived from those by
/// subscriptions (`mirrors`, `projections`, `response`) or by views (`echoes`), and each derived write is
/// idempotent: it depends on a `value`, never on a derived field. That is why cycles of models and views
/// settle, and why a reference model can predict every field but two: `version`, which counts commits and so
/// depends on how deliveries were coalesced, and `echoes`, which views write with what they last rendered.
struct Tally: ViewState {
    /// The slot of the model holding this state, so that a handler given only the state knows its source.
    var slot: Int
    /// Bumped by every change, so that renderers can tell the order of the states they receive.
    var version = 0
    var value = 0
    /// Bumped when `value` changes; what projection views order by.
    var valueStamp = 0
    /// The `value` of each followed model, by slot: written by whole-state subscriptions.
    var mirrors: [Int: Int] = [:]
    /// `value % 3` of each followed model, by slot: written by projection subscriptions.
    var projections: [Int: Int] = [:]
    /// The last value each echoing view rendered, by view ID.
    var echoes: [Int: Int] = [:]
    /// What a bound model's effect is asked for.
    var request = 0
    /// What a bound model's effect answered: `request * 10` once it settles.
    var response = 0
    /// Increments, for the concurrent run.
    var count = 0

    init(slot: Int) {
        self.slot = slot
    }

    mutating func setValue(_ newValue: Int) {
        guard value != newValue else { return }
        value = newValue
        valueStamp += 1
        version += 1
    }

    mutating func set(_ field: WritableKeyPath<Tally, [Int: Int]>, _ key: Int, to newValue: Int) {
        guard self[keyPath: field][key] != newValue else { return }
        self[keyPath: field][key] = newValue
        version += 1
    }

    mutating func set(_ field: WritableKeyPath<Tally, Int>, to newValue: Int) {
        guard self[keyPath: field] != newValue else { return }
        self[keyPath: field] = newValue
        version += 1
    }

    /// What a projection follower keeps of this state.
    var remainder: SlotValue { SlotValue(slot: slot, value: value % 3) }

    /// What a projection view renders.
    var digest: Digest { Digest(value: value, stamp: valueStamp) }

    /// This state without the fields that depend on how deliveries were coalesced.
    var predictable: Tally {
        var copy = self
        copy.version = 0
        copy.echoes = [:]
        return copy
    }
}

/// A projected value that names its source.
struct SlotValue: Equatable, Sendable {
    var slot: Int
    var value: Int
}

/// The state a projection view renders.
struct Digest: ViewState {
    var value: Int
    var stamp: Int
}

/// A state a probe view can check: ordered by `stamp`, and never negative in `value` once committed.
protocol Rendered: ViewState {
    var value: Int { get }
    var stamp: Int { get }
}

extension Tally: Rendered {
    var stamp: Int { version }
}

extension Digest: Rendered {}

/// A plain model of a randomized run.
final class PlainTally: ViewModel<Tally>, @unchecked Sendable {
    init(slot: Int) {
        super.init(initialState: Tally(slot: slot))
    }

    /// The handler of the unapplied-method form of whole-state following.
    func publisherDidChange(_ publisher: Tally) {
        write { state.set(\.mirrors, publisher.slot, to: publisher.value) }
    }

    /// The handler of projection following.
    func remainderDidChange(_ remainder: SlotValue) {
        write { $0.whole.set(\.projections, remainder.slot, to: remainder.value) }
    }
}
