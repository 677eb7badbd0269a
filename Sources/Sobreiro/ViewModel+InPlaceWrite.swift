import SobreiroPrimitives

extension ViewModel {
    /// Changes the state in place, atomically, and returns what `body` returns.
    ///
    /// `body` gets a ``Draft`` of the state: each of its members reads and changes the one state that the
    /// transaction builds, so a transaction started from `body` (a method of the model that writes, say) joins this
    /// one, and what each of them changes stands.
    ///
    /// ```swift
    /// counter.write { $0.count += 1 }
    /// let total = cart.write { draft -> Int in
    ///     draft.items.append(item)
    ///     return draft.items.count
    /// }
    /// ```
    ///
    /// - Parameter body: Changes the state through the draft passed to it.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; the state is then left as it was.
    @inlinable
    @inline(__always)
    @discardableResult
    public final func write<R, E: Error>(_ body: (borrowing Draft<State>) throws(E) -> R) throws(E) -> R {
        try perform { () throws(E) -> R in
            // Bound first: the optimizer of Swift 6.3 crashes inlining the draft built inside the call.
            let draft = Draft(self)
            return try body(draft)
        }
    }
}

/// The state that an in-place ``ViewModel/write(_:)->_`` changes, member by member.
///
/// Each member of the state is a member of the draft: `draft.count += 1` changes the state's `count`, and
/// `draft.items.append(item)` its `items`. ``whole`` is the whole state, for a mutating method of the state or to
/// replace it. A draft lives only as long as the closure it is passed to, which cannot copy it or let it escape.
///
/// Every access reaches the one state that the transaction builds, at the moment it is made. So a transaction
/// started between two of them (through a method of the model that writes) joins this one, and the next access sees
/// its change. Accesses to different members may overlap, as those to the stored properties of one struct may:
/// `swap(&draft.items, &draft.archive)`, `draft.pin? += draft.step`, or `draft.items.removeAll { $0 == draft.limit }`.
/// Only code that runs *during* a member's change (a closure passed to the member's mutating method, a lazy
/// collection, an effect's `reduce`, a subscriber of another model written from there) must leave that member, the
/// whole state and the model's transactions alone: reading or changing the member under change, reading
/// ``ViewModel/state`` or ``whole``, or writing through a method would overlap the change, which Swift's rule of
/// exclusive access forbids, and stops the program with a message that names the fix. (Release builds do not look
/// for the member under change: there such a read gets a copy that shares storage with the change in progress.)
/// Read what such code needs first:
///
/// ```swift
/// model.write { draft in
///     let limit = draft.items.count / 2
///     draft.items.removeAll { $0 > limit }
/// }
/// ```
@dynamicMemberLookup
public struct Draft<State: ViewState>: ~Copyable {
    @usableFromInline
    let model: ViewModel<State>

    @inlinable
    init(_ model: ViewModel<State>) {
        self.model = model
    }

    /// A member of the state, read or changed in place.
    @inlinable
    public subscript<Member>(dynamicMember path: WritableKeyPath<State, Member>) -> Member {
        get {
            model.checkMemberFree(path)
            return model.current[keyPath: path]
        }
        nonmutating _modify {
            model.checkMemberFree(path)
            model.beginChange(of: path)
            defer { model.endChange() }
            yield &model.currentAddress.pointee[keyPath: path]
        }
    }

    /// A member of the state that is read only, such as a computed property.
    @inlinable
    public subscript<Member>(dynamicMember path: KeyPath<State, Member>) -> Member {
        model.checkMemberFree(path)
        return model.current[keyPath: path]
    }

    /// The whole state, read, changed by one of its mutating methods, or replaced.
    ///
    /// ```swift
    /// model.write { $0.whole.apply(action) }
    /// ```
    @inlinable
    public var whole: State {
        get {
            model.checkNoDraftAccess()
            return model.current
        }
        nonmutating _modify {
            model.checkNoDraftAccess()
            model.beginChange(of: nil)
            defer { model.endChange() }
            yield &model.currentAddress.pointee
        }
    }
}

extension ViewModel {
    /// Starts a draft's change of the member at `path`, or of the whole state if `nil`.
    ///
    /// A method of the model, so that ThreadSanitizer sees the counter it writes as the model's own, guarded by its
    /// lock. Debug builds also record the member, to catch a read or change of it that overlaps its change; release
    /// builds never look at `path`, so that an optimized write never makes the key path an object.
    @inlinable
    @inline(__always)
    final func beginChange(of path: @autoclosure () -> AnyKeyPath?) {
        #if DEBUG
            changingMembers.append(path())
        #endif
        draftAccesses &+= 1
    }

    /// Ends the change that ``beginChange(of:)`` started.
    @inlinable
    @inline(__always)
    final func endChange() {
        #if DEBUG
            changingMembers.removeLast()
        #endif
        draftAccesses &-= 1
    }

    /// Traps if a draft is changing a member of the state: reading or writing the whole state now would overlap that
    /// change. Every read and write of the whole of `current` by the transaction's thread checks it.
    @inlinable
    @inline(__always)
    final func checkNoDraftAccess() {
        if _slowPath(draftAccesses != 0) { overlappedDraftAccess() }
    }

    /// Traps if reading or changing the member at `path` would overlap a draft's change: any change while a
    /// transaction that joined this one during a member's change runs, and, in debug builds, a change of the same
    /// member. A draft's accesses to other members may overlap, as accesses to the stored properties of one struct
    /// may.
    @inlinable
    @inline(__always)
    final func checkMemberFree(_ path: @autoclosure () -> AnyKeyPath) {
        #if DEBUG
            if draftAccesses != 0, changingMembers.contains(where: { $0 == nil || $0 == path() }) {
                overlappedDraftAccess()
            }
        #endif
        if _slowPath(joinedDuringDraftAccess != 0) { overlappedDraftAccess() }
    }

    @usableFromInline
    @inline(never)
    final func overlappedDraftAccess() -> Never {
        fatalError(
            """
            The state of \(type(of: self)) was read or written while write { $0 … } was changing one of its members, \
            from code that runs during that change: a closure passed to the member's mutating method, a lazy \
            collection, an effect's reduce, or a subscriber called from there. Read what that code needs before the \
            change, and write after it; in an effect's reduce, change the state through its argument only.
            """
        )
    }
}
