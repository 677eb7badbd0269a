import SobreiroPrimitives
import Synchronization

// A part model: a view model whose state is a part of another model's, its parent's, and that writes through the
// parent's transactions.
//
// The parent's state holds the truth. A write of the part model runs as a transaction of the parent: under the
// parent's lock, then the part model's, the part model's `current` is set to the part and serves as the state
// its code builds; when the code returns, the part goes back into the parent's state, and `current` back to the
// committed part. Whenever a transaction of the parent commits, still under its lock, each part model whose part
// changed commits that part in a transaction of its own, and delivers it once the parent's lock is let go of.
// So both models commit in one order, the parent's, and the versions that a part model's effects compare follow
// every change of the part. The locks are always taken parent first.
//
// While the code of a part model's write runs, the part lives in that model's `current`, and the parent's state
// holds it as it was. A write of the parent nested in that code could neither see the part's changes nor roll them
// back, so it is refused: the program stops, naming the fix. Part models of the part model write into its
// `current`, and stay consistent.

extension ViewModel {
    /// The part of the state `read` finds, as this model last committed it, read where transactions cannot
    /// change it meanwhile.
    final func committedPart<Part>(_ read: (State) -> Part) -> Part {
        withLockUnlessInTransaction { read(committed) }
    }

    /// A write of this part model, which is not in a transaction of its own on this thread: it runs as a
    /// transaction of the parent.
    @usableFromInline
    @inline(never)
    final func performAsPart<R, E: Error>(on thread: UInt, _ body: () throws(E) -> R) throws(E) -> R {
        try link.unsafelyUnwrapped.perform(for: self, on: thread, body)
    }

    /// A write of this model nested in the code of a write of one of its part models.
    @usableFromInline
    @inline(never)
    final func writtenInsidePartWrite() -> Never {
        fatalError(
            "\(type(of: self)) was written inside a write of one of its part models. A part model's write is a "
                + "transaction of its parent, whose state holds the part as it was until that write returns, so this "
                + "write could neither see the part's changes nor undo them: write \(type(of: self)) before or after "
                + "the part model's write, or make the change through the part model."
        )
    }

    /// Commits `part`, which the parent has just committed, as this model's state: called under the parent's lock,
    /// in the parent's transaction. What must follow the parent's unlock, this model's delivery and the states it
    /// let go of, is added to `after`.
    final func commitPart(_ part: State, on thread: UInt, after: inout [() -> Void]) {
        var replaced: State?
        var leftovers: TransactionLeftovers<State>?
        let round = withModelLock { () -> Round? in
            guard part != committed else { return nil }
            current = part
            let round = commitAndClaimDelivery(changed: true, on: thread, replaced: &replaced)
            // A part of a part: it commits in this same step.
            if !parts.isEmpty { commitParts(on: thread, after: &after) }
            // What the commit left, such as main-actor followers to bring up to date, as any transaction's.
            if hasLeftovers { leftovers = takeLeftovers(on: thread) }
            return round
        }
        after.append { [self] in
            replaced = nil
            if let leftovers { finish(leftovers) }
            if let round { deliver(round, on: thread, isTracing: traceFlag.isOn) }
        }
    }

    /// Commits, in each live part model of this model, the part that this model's transaction has just committed;
    /// called under this model's lock. Forgets the part models that are gone.
    @usableFromInline
    final func commitParts(on thread: UInt, after: inout [() -> Void]) {
        var kept: [PartModel<State>] = []
        for part in parts where part.commit(from: committed, on: thread, after: &after) {
            kept.append(part)
        }
        guard kept.count != parts.count else { return }
        // The records forgotten go after the unlock: their key paths may hold objects of the app's.
        swap(&parts, &kept)
        after.append { _ = kept }
    }

    /// The same as ``commitParts(on:after:)``, with what must follow the unlock parked with the transaction's
    /// leftovers, which are taken and finished once the lock is let go of.
    @usableFromInline
    @inline(never)
    final func commitPartsWithLeftovers(on thread: UInt) {
        var after: [() -> Void] = []
        commitParts(on: thread, after: &after)
        guard !after.isEmpty else { return }
        leftovers.afterUnlock.append(contentsOf: after)
        hasLeftovers = true
    }
}

/// How a part model reaches its parent. Set once, as the model is made.
@usableFromInline
class PartLink<State: ViewState>: @unchecked Sendable {
    /// The part as a transaction of the parent running on `thread` is building it, or `nil` if none runs there.
    @usableFromInline
    func partBeingBuilt(on thread: UInt) -> State? {
        fatalError("PartLink is abstract")
    }

    /// Whether a transaction of the parent, or of the parent's parent and so on, runs on `thread`.
    @usableFromInline
    func parentRunsTransaction(on thread: UInt) -> Bool {
        fatalError("PartLink is abstract")
    }

    /// Runs `body`, a write of `model`, as a transaction of the parent.
    func perform<R, E: Error>(
        for model: ViewModel<State>, on thread: UInt, _ body: () throws(E) -> R
    ) throws(E) -> R {
        fatalError("PartLink is abstract")
    }
}

/// What a parent keeps of one part model: a weak reference, and where its part is.
@usableFromInline
class PartModel<Parent: ViewState>: @unchecked Sendable {
    /// The part model, if it is alive; read under the parent's lock, and let go of after the unlock, since the
    /// reference it makes may be the last one.
    func liveModel() -> AnyObject? {
        fatalError("PartModel is abstract")
    }

    /// Commits the part of `state` into the part model, unless it is gone; called under the parent's lock.
    ///
    /// - Returns: Whether the part model is alive.
    func commit(from state: Parent, on thread: UInt, after: inout [() -> Void]) -> Bool {
        fatalError("PartModel is abstract")
    }
}

/// The link of a part model to its parent, and the parent's record of it.
final class PartOf<Parent: ViewState, State: ViewState>: PartLink<State>, @unchecked Sendable {
    let parent: ViewModel<Parent>
    let read: @Sendable (Parent) -> State?
    let write: @Sendable (inout Parent, State) -> Void
    /// Whether the parent's state has stopped holding the part, shared with the parent's record.
    let presence = PartPresence()

    init(
        parent: ViewModel<Parent>,
        read: @escaping @Sendable (Parent) -> State?,
        write: @escaping @Sendable (inout Parent, State) -> Void
    ) {
        self.parent = parent
        self.read = read
        self.write = write
    }

    /// The part in `state`, unless the parent's state has stopped holding it since this model was made: a part
    /// that comes back (a sheet shown again) is another part, which this model does not reach. Read under the
    /// parent's lock, or in its transaction.
    func part(of state: Parent) -> State? {
        presence.isGone ? nil : read(state)
    }

    override func parentRunsTransaction(on thread: UInt) -> Bool {
        parent.transactionOwner.load(ordering: .relaxed) == thread
            || parent.link?.parentRunsTransaction(on: thread) == true
    }

    override func partBeingBuilt(on thread: UInt) -> State? {
        guard parent.transactionOwner.load(ordering: .relaxed) == thread else {
            // A transaction of the parent's parent, and so on, builds the parent's part, and this one in it.
            return parent.link?.partBeingBuilt(on: thread).flatMap(part(of:))
        }
        parent.checkNoDraftAccess()
        return part(of: parent.current)
    }

    override func perform<R, E: Error>(
        for model: ViewModel<State>, on thread: UInt, _ body: () throws(E) -> R
    ) throws(E) -> R {
        try parent.perform { () throws(E) -> R in
            parent.checkNoDraftAccess()
            let before = part(of: parent.current)
            return try model.withModelLock { () throws(E) -> R in
                model.transactionOwner.store(thread, ordering: .relaxed)
                if let before { model.current = before }
                let wasWrittenThroughPart = parent.isWrittenThroughPart
                parent.isWrittenThroughPart = true
                defer {
                    parent.isWrittenThroughPart = wasWrittenThroughPart
                    model.transactionOwner.store(0, ordering: .relaxed)
                    // Back to the committed part, which delivery and new subscribers read under this lock; the
                    // draft goes once the parent's lock is let go of.
                    var draft = model.committed
                    swap(&draft, &model.current)
                    parent.leftovers.afterUnlock.append { _ = draft }
                    if model.hasLeftovers {
                        let leftovers = model.takeLeftovers(on: thread)
                        parent.leftovers.afterUnlock.append { model.finish(leftovers) }
                    }
                    parent.hasLeftovers = true
                }
                let result = try body()
                model.draftAccesses = 1
                defer { model.draftAccesses = 0 }
                guard let before, part(of: parent.current) != nil else {
                    partWriteDropped.emit(
                        "\(type(of: model)) wrote to its part of \(type(of: parent))'s state after the parent's state "
                            + "stopped holding it (a sheet closed, an element removed): the write commits nothing.")
                    return result
                }
                if model.current != before { write(&parent.current, model.current) }
                return result
            }
        }
    }
}

/// The parent's record of a part model.
private final class PartRecord<Parent: ViewState, State: ViewState>: PartModel<Parent>, @unchecked Sendable {
    weak var model: ViewModel<State>?
    let read: @Sendable (Parent) -> State?
    let presence: PartPresence

    init(model: ViewModel<State>, link: PartOf<Parent, State>) {
        self.model = model
        read = link.read
        presence = link.presence
    }

    override func liveModel() -> AnyObject? {
        model
    }

    override func commit(from state: Parent, on thread: UInt, after: inout [() -> Void]) -> Bool {
        // A strong reference, let go of after the unlock: it may be the last one.
        guard let model else { return false }
        after.append { _ = model }
        guard let part = read(state) else {
            // Gone for good: the model keeps its last state, and is forgotten.
            presence.isGone = true
            return false
        }
        model.commitPart(part, on: thread, after: &after)
        return true
    }
}

/// Whether a parent's state has stopped holding a part model's part. Guarded by the parent's lock.
final class PartPresence: @unchecked Sendable {
    var isGone = false
}

extension PartOf {
    /// Records `model` in the parent, and gives it the part as the parent holds it now, which a transaction of
    /// the parent may have changed since the model read its initial state.
    func attach(_ model: ViewModel<State>) {
        let letGo = parent.withLockUnlessInTransaction { () -> [AnyObject] in
            // Records of part models released since the parent last committed go now; they, and the references
            // that finding them made, are let go of after the unlock.
            var letGo: [AnyObject] = []
            parent.parts.removeAll { record in
                guard let model = record.liveModel() else {
                    letGo.append(record)
                    return true
                }
                letGo.append(model)
                return false
            }
            parent.parts.append(PartRecord(model: model, link: self))
            // Kept set while the parent has parts: its transactions then commit them (see `performOutermost`).
            parent.hasLeftovers = true
            guard let part = read(parent.committed), part != model.committed else { return letGo }
            // No one else holds the model yet.
            model.current = part
            model.committed = part
            return letGo
        }
        withExtendedLifetime(letGo) {}
    }
}

/// Said once per process, in debug builds, when a part model writes to a part its parent no longer holds.
private let partWriteDropped = RuntimeWarning()

extension Array where Element: Identifiable {
    /// The element whose `id` is `id`, or `nil` if there is none; setting replaces it, and setting `nil` removes
    /// it. A key path through it, `\.meetings[id: id]`, makes a part model of one element.
    ///
    /// - Parameter id: The identity of the element.
    public subscript(id id: Element.ID) -> Element? {
        get { first { $0.id == id } }
        set {
            guard let index = firstIndex(where: { $0.id == id }) else { return }
            if let newValue { self[index] = newValue } else { remove(at: index) }
        }
    }
}
