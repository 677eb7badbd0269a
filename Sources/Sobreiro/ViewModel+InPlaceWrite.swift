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
/// its change.
///
/// Accesses to the draft may not overlap, as those to a stored property of a class may not: while one member is
/// being changed, code that runs *during* that change (a closure passed to the member's mutating method, a lazy
/// collection, an effect's `reduce`, a subscriber of another model written from there) must leave the state alone.
/// Reading or changing any member, ``whole`` or ``ViewModel/state``, or writing through a method of the model that
/// changes the state, would overlap the change, and stops the program, in every build, with a message that names the
/// fix: read what such code needs first, and write after the change.
///
/// ```swift
/// model.write { draft in
///     let limit = draft.limit
///     draft.items.removeAll { $0 > limit }  // not { $0 > draft.limit }
///     draft.pin = draft.pin.map { $0 + limit }  // not draft.pin? += draft.limit
/// }
/// ```
///
/// Two members changed at once, as with `swap(&draft.items, &draft.archive)`, overlap too: change them one after the
/// other, or through a mutating method of the state on ``whole``.
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
            model.checkNoDraftAccess()
            return model.current[keyPath: path]
        }
        nonmutating _modify {
            model.checkNoDraftAccess()
            model.beginChange()
            defer { model.endChange() }
            yield &model.currentAddress.pointee[keyPath: path]
        }
    }

    /// A member of the state that is read only, such as a computed property.
    @inlinable
    public subscript<Member>(dynamicMember path: KeyPath<State, Member>) -> Member {
        model.checkNoDraftAccess()
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
            model.beginChange()
            defer { model.endChange() }
            yield &model.currentAddress.pointee
        }
    }
}

extension ViewModel {
    /// Starts a draft's change of the state. A method of the model, so that ThreadSanitizer sees the counter it
    /// writes as the model's own, guarded by its lock.
    @inlinable
    @inline(__always)
    final func beginChange() {
        draftAccesses &+= 1
    }

    /// Ends the change that ``beginChange()`` started.
    @inlinable
    @inline(__always)
    final func endChange() {
        draftAccesses &-= 1
    }

    /// Traps if a draft is changing the state: reading or writing any of it now would overlap that change. Every
    /// read and write of `current` by the transaction's thread checks it.
    @inlinable
    @inline(__always)
    final func checkNoDraftAccess() {
        if _slowPath(draftAccesses != 0) { overlappedDraftAccess() }
    }

    @usableFromInline
    @inline(never)
    final func overlappedDraftAccess() -> Never {
        fatalError(
            """
            The state of \(type(of: self)) was read or written while write { $0 … } was changing one of its members, \
            from code that runs during that change: a closure passed to the member's mutating method, a lazy \
            collection, an effect's reduce, a subscriber called from there, or a second member changed at once (as \
            with swap); or by the state's ==, while a transaction compared its new state with the last. Read what \
            that code needs before the change, and write after it; in an effect's reduce, change the state through \
            its argument only; keep == free of the model.
            """
        )
    }
}
