/// The parts of a change that `ChildrenRoute.show(_:)` works out before it touches the scope: the identities of
/// the new elements, which of the middle stay, whether one repeats, and whether the middle is in order already.
extension ChildrenRoute {
    /// Whether the children of `order` from `start` on already follow `ids`.
    @inlinable
    func middleIsInOrder(_ ids: ArraySlice<ID>, from start: Int) -> Bool {
        var index = start
        for identity in ids {
            guard order[index].id == identity else { return false }
            index += 1
        }
        return true
    }

    /// Drops from `order` the children that left. A plain loop: a closure passed to the standard library here
    /// would be isolated to the main actor and check its executor once per child.
    @inlinable
    func pruneOrder() {
        var kept: [Entry] = []
        kept.reserveCapacity(order.count)
        for entry in order where hosted[entry.id] === entry.child { kept.append(entry) }
        if kept.count != order.count { order = kept }
        orderIsStale = false
    }

    /// Finds the element of the middle whose child sits in the prefix or the suffix, and traps naming it.
    @inlinable
    func duplicateOutsideMiddle(_ coming: ArraySlice<ID>, leaving: Range<Int>) -> Never {
        var replaced = Set<ID>()
        for index in leaving { replaced.insert(order[index].id) }
        for identity in coming where hosted[identity] != nil && !replaced.contains(identity) {
            Staying.duplicate(identity)
        }
        fatalError("hostChildren(following:): the route lost track of its children")
    }

    /// The identities of the middle of a new collection; traps if one repeats.
    @usableFromInline
    struct Staying {
        @usableFromInline
        let ids: ArraySlice<ID>
        /// Built only for a middle longer than a few elements.
        @usableFromInline
        let set: Set<ID>?

        @inlinable
        init(ids: ArraySlice<ID>) {
            self.ids = ids
            if ids.count > 8 {
                var set = Set<ID>(minimumCapacity: ids.count)
                for identity in ids where !set.insert(identity).inserted { Self.duplicate(identity) }
                self.set = set
            } else {
                set = nil
                for index in ids.indices where ids[ids.startIndex..<index].contains(ids[index]) {
                    Self.duplicate(ids[index])
                }
            }
        }

        @inlinable
        func contains(_ identity: ID) -> Bool {
            if let set { return set.contains(identity) }
            return ids.contains(identity)
        }

        @inlinable
        static func duplicate(_ identity: ID) -> Never {
            fatalError(
                "hostChildren(following:): two elements have the id \(identity); give each element a distinct id")
        }
    }

    @inlinable
    func identities(of elements: [Element]) -> [ID] {
        var result: [ID] = []
        result.reserveCapacity(elements.count)
        for element in elements { result.append(id(element)) }
        return result
    }
}
