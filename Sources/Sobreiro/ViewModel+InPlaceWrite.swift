import SobreiroPrimitives
public import Synchronization

extension ViewModel {
    /// Mutates the state in place, atomically, and returns what `body` returns.
    ///
    /// `body` works on a private copy that is committed when it returns, so read and change the state
    /// through its argument. A transaction of this model started from `body` (a method of the model that
    /// writes, say) changes the state behind that copy: its change stands if `body` leaves the copy unchanged,
    /// and `body` does not see it through its argument. If `body` changes the copy too, one of the two changes
    /// would be lost, which is a programmer error: it stops the program and names the fix. To compose
    /// transactions that change the state through methods, use ``write(_:)->()`` and assign ``state``.
    ///
    /// ```swift
    /// counter.write { $0.count += 1 }
    /// let total = cart.write { state -> Int in
    ///     state.items.append(item)
    ///     return state.items.count
    /// }
    /// ```
    ///
    /// - Parameter body: Mutates the state passed to it.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; the state is then left as it was.
    @inlinable
    @inline(__always)
    @discardableResult
    public final func write<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        // Always inlined: an optimized build specializes this function for the closure of each call site anyway,
        // and inlined into its caller it spares a call and a second frame on every write. The rare paths stay out of
        // line.
        let thread = currentThread
        if transactionOwner.load(ordering: .relaxed) == thread {
            return try writeNested(body)
        }
        // Outermost, the state the body starts from is the committed one, which the lock keeps still, and no
        // assignment was counted yet.
        return try performOutermost(on: thread) { () throws(E) -> R in
            var draft = current
            let result: R
            do throws(E) {
                result = try body(&draft)
            } catch {
                releaseWhenTransactionEnds(draft)
                throw error
            }
            guard assignments == 0 else {
                checkNestedChangeStands(draft: draft, found: committed)
                return result
            }
            current = draft
            assignments = 1
            return result
        }
    }

    /// ``write(_:)->_`` inside a transaction that this thread runs already: the body starts from its draft. Out of line, so that the
    /// outermost write inlines its own body.
    @inlinable
    @inline(never)
    final func writeNested<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        try performNested { () throws(E) -> R in
            let assignmentsBefore = assignments
            let start = current
            var draft = current
            let result: R
            do throws(E) {
                result = try body(&draft)
            } catch {
                releaseWhenTransactionEnds(draft)
                throw error
            }
            guard assignments == assignmentsBefore else {
                checkNestedChangeStands(draft: draft, found: start)
                return result
            }
            current = draft
            assignments &+= 1
            return result
        }
    }

    /// Traps unless `draft`, which a body changed through its argument while a transaction nested in it changed
    /// `current`, is still `found`, the state the body started from: otherwise one of the two changes would be lost.
    /// Both are kept until the transaction unlocks: `found` may be a draft that the nested change replaced, and
    /// `draft` an equal copy with buffers of its own, either one the last reference to a value with a `deinit`.
    @inlinable
    @inline(never)
    final func checkNestedChangeStands(draft: consuming State, found: consuming State) {
        var draft = draft
        var found = found
        if !Self.isUnchanged(&draft, from: &found) {
            fatalError(
                """
                A transaction nested in write { $0 … } changed the state while the closure also changed its \
                copy $0, so one change would be lost. Make the nested change through $0, or write the outer \
                transaction as write { state = … } so that nested ones join it.
                """
            )
        }
        releaseWhenTransactionEnds(draft)
        releaseWhenTransactionEnds(found)
    }

    /// Whether `draft`, a copy of `found`, still holds the value it was copied from.
    ///
    /// The same bits say so before `==` is asked: a state whose `==` is not reflexive (a NaN field) is not equal to
    /// an untouched copy of itself. A changed copy never has the same bits, as a change to a shared buffer copies
    /// it first; an unchanged one may differ in padding, and is then compared with `==`.
    @usableFromInline
    static func isUnchanged(_ draft: inout State, from found: inout State) -> Bool {
        let isSameBits = withUnsafeBytes(of: &draft) { draft in
            withUnsafeBytes(of: &found) { found in draft.elementsEqual(found) }
        }
        return isSameBits || draft == found
    }
}
