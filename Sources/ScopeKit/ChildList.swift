/// The children of a scope, in order, with removal in constant time.
///
/// Each child remembers its slot, so leaving does not search its siblings: the slot becomes a hole, and the
/// holes are squeezed out when they outnumber the children, which keeps appends and removals constant in
/// amortised time whatever the number of siblings. Holes at the end are dropped at once, so a stack that pushes
/// and pops its last child never leaves any.
@MainActor
package struct ChildList {
    /// The children in order, with `nil` where one has left.
    private(set) var slots: [Behavior?] = []
    private var holes = 0

    /// The children, in order, without the holes.
    var elements: [Behavior] {
        var result: [Behavior] = []
        result.reserveCapacity(slots.count - holes)
        for index in slots.indices {
            if let child = self.child(at: index) { result.append(child) }
        }
        return result
    }

    /// How many slots the lists have read, counted in debug builds only. Tests count them to tell an operation
    /// that costs the same whatever the number of siblings from one that searches them, without timing either.
    package static var slotReads = 0

    /// Whether this build counts `slotReads`.
    #if DEBUG
        nonisolated package static let countsSlotReads = true
    #else
        nonisolated package static let countsSlotReads = false
    #endif

    /// The child in `slot`, or `nil` for a hole. Every read of a slot goes through here, searches included, so
    /// that `slotReads` counts them.
    private func child(at slot: Int) -> Behavior? {
        #if DEBUG
            Self.slotReads += 1
        #endif
        return slots[slot]
    }

    /// The slot that `child` holds in this list, or `nil` if it is not in this list.
    private func slot(of child: Behavior) -> Int? {
        let slot = child.slot
        guard slot >= 0, slot < slots.count, self.child(at: slot) === child else { return nil }
        return slot
    }

    var isEmpty: Bool { slots.count == holes }

    mutating func append(_ child: Behavior) {
        child.slot = slots.count
        slots.append(child)
    }

    /// Inserts `child` right before `sibling`, or appends it when `sibling` is not in this list.
    ///
    /// A hole right before `sibling`, which a child that just left there makes, takes `child` in constant time;
    /// otherwise the children after it shift by one slot.
    mutating func insert(_ child: Behavior, before sibling: Behavior) {
        guard let slot = slot(of: sibling) else { return append(child) }
        if slot > 0, self.child(at: slot - 1) == nil {
            slots[slot - 1] = child
            child.slot = slot - 1
            holes -= 1
            return
        }
        slots.insert(child, at: slot)
        for index in slot..<slots.count { self.child(at: index)?.slot = index }
    }

    /// Whether `child` sits right before `sibling` in this list, with no hole between them.
    func holds(_ child: Behavior, rightBefore sibling: Behavior) -> Bool {
        let slot = child.slot
        guard slot >= 0, sibling.slot == slot + 1, slot + 1 < slots.count else { return false }
        return self.child(at: slot) === child && self.child(at: slot + 1) === sibling
    }

    /// Removes `child`, which must be in this list.
    mutating func remove(_ child: Behavior) {
        guard let slot = slot(of: child) else { fatalError("ScopeKit: a child lost its slot") }
        child.slot = -1
        if slot == slots.count - 1 {
            slots.removeLast()
            while !slots.isEmpty, self.child(at: slots.count - 1) == nil {
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
        var members = children
        var places: [Int] = []
        places.reserveCapacity(children.count)
        for child in children {
            guard let slot = slot(of: child) else {
                members = []
                break
            }
            places.append(slot)
        }
        if members.isEmpty, !children.isEmpty {
            // Some are not in this list: the rare case, when changes queued before this one moved them.
            places.removeAll(keepingCapacity: true)
            for child in children {
                guard let slot = slot(of: child) else { continue }
                members.append(child)
                places.append(slot)
            }
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
        for index in slots.indices where self.child(at: index) != nil && !isKnownUniquelyReferenced(&slots[index]) {
            if let child = self.child(at: index) { body(child) }
        }
    }

    /// Drops the holes, giving each child its new slot.
    private mutating func compact() {
        var kept: [Behavior?] = []
        kept.reserveCapacity(slots.count - holes)
        for index in slots.indices {
            guard let child = self.child(at: index) else { continue }
            child.slot = kept.count
            kept.append(child)
        }
        slots = kept
        holes = 0
    }
}
