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

    /// Puts `children` in the given order across the slots they occupy; every other child keeps its place.
    /// Those not in this list are ignored, and so is each repeat of one that is.
    ///
    /// Linear when the children already sit in nearly the given order, as a route's do: the sort of their
    /// slots then finds runs, and no set is built unless a child is named twice.
    mutating func arrange(_ children: [Behavior]) {
        var members: [Behavior] = []
        members.reserveCapacity(children.count)
        var places: [Int] = []
        places.reserveCapacity(children.count)
        for child in children {
            let slot = child.slot
            guard slot >= 0, slot < slots.count, slots[slot] === child else { continue }
            members.append(child)
            places.append(slot)
        }
        places.sort()
        var index = 1
        while index < places.count, places[index] != places[index - 1] { index += 1 }
        if index < places.count {
            // A child named twice: keep its first place in the order, and each slot once.
            var seen = Set<ObjectIdentifier>()
            var unique: [Behavior] = []
            for child in members where seen.insert(ObjectIdentifier(child)).inserted { unique.append(child) }
            members = unique
            var distinct: [Int] = []
            for place in places where distinct.last != place { distinct.append(place) }
            places = distinct
        }
        for index in members.indices {
            slots[places[index]] = members[index]
            members[index].slot = places[index]
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
