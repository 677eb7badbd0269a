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

    /// Commits `part`, which the parent has just committed, as this model's state: called under the parent's lock,
    /// in the parent's transaction. What must follow the parent's unlock, this model's delivery and the states it
    /// let go of, is added to `after`.
    final func commitPart(_ part: State, on thread: UInt, after: inout [() -> Void]) {
        var replaced: State?
        let round = withModelLock { () -> Round? in
            guard part != committed else { return nil }
            current = part
            let round = commitAndClaimDelivery(changed: true, on: thread, replaced: &replaced)
            // A part of a part: it commits in this same step.
            if !parts.isEmpty { commitParts(on: thread, after: &after) }
            return round
        }
        after.append { [self] in
            replaced = nil
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
        if kept.count != parts.count { parts = kept }
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

    init(
        parent: ViewModel<Parent>,
        read: @escaping @Sendable (Parent) -> State?,
        write: @escaping @Sendable (inout Parent, State) -> Void
    ) {
        self.parent = parent
        self.read = read
        self.write = write
    }

    /// A write of the part model changed the part while a write of the parent, nested in it, changed it too.
    private func overlappingPartWrites(of model: ViewModel<State>) -> Never {
        fatalError(
            "\(type(of: model)) and \(type(of: parent)) both changed the part of \(type(of: parent))'s state that "
                + "\(type(of: model)) holds, in a write of \(type(of: parent)) nested in a write of \(type(of: model)): "
                + "make the change through one of them, or write \(type(of: model)) inside the write of "
                + "\(type(of: parent)) instead."
        )
    }

    override func partBeingBuilt(on thread: UInt) -> State? {
        guard parent.transactionOwner.load(ordering: .relaxed) == thread else { return nil }
        parent.checkNoDraftAccess()
        return read(parent.current)
    }

    override func perform<R, E: Error>(
        for model: ViewModel<State>, on thread: UInt, _ body: () throws(E) -> R
    ) throws(E) -> R {
        try parent.perform { () throws(E) -> R in
            parent.checkNoDraftAccess()
            let before = read(parent.current)
            return try model.withModelLock { () throws(E) -> R in
                model.transactionOwner.store(thread, ordering: .relaxed)
                if let before { model.current = before }
                defer {
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
                guard let before, let now = read(parent.current) else {
                    partWriteDropped.emit(
                        "\(type(of: model)) wrote to its part of \(type(of: parent))'s state after the parent's state "
                            + "stopped holding it (a sheet closed, an element removed): the write commits nothing.")
                    return result
                }
                guard model.current != before else { return result }
                // A write of the parent nested in this one that changed the part too would be overwritten.
                if now != before { overlappingPartWrites(of: model) }
                write(&parent.current, model.current)
                return result
            }
        }
    }
}

/// The parent's record of a part model.
private final class PartRecord<Parent: ViewState, State: ViewState>: PartModel<Parent>, @unchecked Sendable {
    weak var model: ViewModel<State>?
    let read: @Sendable (Parent) -> State?

    init(model: ViewModel<State>, read: @escaping @Sendable (Parent) -> State?) {
        self.model = model
        self.read = read
    }

    override func commit(from state: Parent, on thread: UInt, after: inout [() -> Void]) -> Bool {
        // A strong reference, let go of after the unlock: it may be the last one.
        guard let model else { return false }
        after.append { _ = model }
        guard let part = read(state) else { return true }  // gone: the model keeps its last state
        model.commitPart(part, on: thread, after: &after)
        return true
    }
}

extension PartOf {
    /// Records `model` in the parent, and gives it the part as the parent holds it now, which a transaction of
    /// the parent may have changed since the model read its initial state.
    func attach(_ model: ViewModel<State>) {
        parent.withLockUnlessInTransaction {
            parent.parts.append(PartRecord(model: model, read: read))
            // Kept set while the parent has parts: its transactions then commit them (see `performOutermost`).
            parent.hasLeftovers = true
            guard let part = read(parent.committed), part != model.committed else { return }
            // No one else holds the model yet.
            model.current = part
            model.committed = part
        }
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
