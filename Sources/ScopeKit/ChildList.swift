/// The children of a scope, in order, with removal in constant time.
///
/// Each child remembers its slot, so leaving does not search its siblings: the slot becomes a hole, and the
/// holes are squeezed out when they outnumber the children, which keeps appends and removals constant in
/// amortised time whatever the number of siblings. Holes at the end are dropped at once, so a stack that pushes
/// and pops its last child never leaves any.
@MainActor
struct ChildList {
    /// The children in order, with `nil` where one has left.
    private(set) var slots: [Behavior?] = []
    private var holes = 0

    /// The children, in order, without the holes.
    var elements: [Behavior] {
        var result: [Behavior] = []
        result.reserveCapacity(slots.count - holes)
        for case let child? in slots { result.append(child) }
        return result
    }

    var isEmpty: Bool { slots.count == holes }

    mutating func append(_ child: Behavior) {
        child.slot = slots.count
        slots.append(child)
    }

    /// Removes `child`, which must be in this list.
    mutating func remove(_ child: Behavior) {
        let slot = child.slot
        precondition(slot >= 0 && slot < slots.count && slots[slot] === child, "ScopeKit: a child lost its slot")
        child.slot = -1
        if slot == slots.count - 1 {
            slots.removeLast()
            while let last = slots.last, last == nil {
                slots.removeLast()
                holes -= 1
            }
        } else {
            slots[slot] = nil
            holes += 1
            if holes > 8, holes * 2 > slots.count { compact() }
        }
    }

    /// Puts `children`, all in this list, in the given order across the slots they occupy; every other child
    /// keeps its place.
    mutating func arrange(_ children: [Behavior]) {
        var places = children.map(\.slot)
        places.sort()
        for (place, child) in zip(places, children) {
            slots[place] = child
            child.slot = place
        }
    }

    /// Calls `body` with each child that something other than this list keeps alive, checking each child just
    /// before its call: a call may run hooks that let go of the next ones.
    mutating func forEachHeldElsewhere(_ body: (Behavior) -> Void) {
        for index in slots.indices where slots[index] != nil && !isKnownUniquelyReferenced(&slots[index]) {
            if let child = slots[index] { body(child) }
        }
    }

    /// Drops the holes, giving each child its new slot.
    private mutating func compact() {
        var kept: [Behavior?] = []
        kept.reserveCapacity(slots.count - holes)
        for case let child? in slots {
            child.slot = kept.count
            kept.append(child)
        }
        slots = kept
        holes = 0
    }
}
