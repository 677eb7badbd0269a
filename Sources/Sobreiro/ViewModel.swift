public import SobreiroPrimitives
public import Synchronization

/// Holds the one state of a screen or domain and tells its subscribers about every change.
///
/// The state changes only inside a transaction: ``write(_:)->()``, ``update(_:)`` or the in-place
/// ``write(_:)->_``. A transaction runs under the model's lock, from any thread; subscribers
/// hear about it once, after the lock is released, and only if the committed state differs from the previous
/// one. Views subscribe with `subscribe(view:)` and are held weakly; other models subscribe with
/// ``subscribe(to:onChange:)-(_,(S)->Void)``.
///
/// ```swift
/// final class ListViewModel: ViewModel<ListState>, @unchecked Sendable {
///     init() { super.init(initialState: .loading) }
///
///     func didLoad(_ items: [String]) {
///         update { .loaded(items) }
///     }
/// }
/// ```
///
/// `ViewModel` is `Sendable`: one instance is shared freely across threads, tasks and actors. Swift asks a
/// subclass to restate `@unchecked Sendable`, as above; that promise holds as long as the subclass keeps its
/// mutable data in `State` and only immutable, sendable values in its own stored properties.
///
/// See <doc:ThreadingAndReentrancy> for the exact delivery guarantees.
open class ViewModel<State: ViewState>: StateSource<State>, @unchecked Sendable {
    /// Guards every `@exclusivity(unchecked)` field below but `committed`; held by transactions.
    @usableFromInline
    final let lock = Lock()

    /// Guards `committed`. Held only to copy the state in or out, never while waiting for anything else, so
    /// a read of ``state`` never waits for a transaction.
    @usableFromInline
    final let snapshotLock = Lock()

    /// The last committed state. Guarded by `snapshotLock`; written only by a transaction holding `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var committed: State

    /// The version of `committed`. Guarded by `snapshotLock`; written only by a transaction holding `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var committedSnapshotVersion: UInt64 = 1

    /// The thread running a transaction on this model, or 0. Read without the lock to recognise nesting:
    /// only the owning thread ever finds its own ID here.
    @usableFromInline
    final let transactionOwner = Atomic<UInt>(0)

    /// The committed state, or inside a transaction the state being built. Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var current: State

    /// The address of `current`, a stored property of this final storage, which stays put as long as the model
    /// lives. A draft changes a member through it, so that its access is to the state alone, not to the model object
    /// that other threads read without the lock (ThreadSanitizer reports a key path applied through the model as a
    /// change of the model).
    @inlinable
    final var currentAddress: UnsafeMutablePointer<State> {
        withUnsafeMutablePointer(to: &current) { $0 }
    }

    /// Counts commits that changed the state. Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var version: UInt64 = 1

    /// How many accesses of a ``Draft`` to `current` are under way. While one is, nothing else may read or change the
    /// state (see ``Draft``). Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var draftAccesses = 0

    /// Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var subscribers: SubscriberList<State> = .empty

    /// Whether a thread delivers, and how many delivery rounds were asked for: the delivery protocol of
    /// `ViewModel+Delivery.swift`. Changed under `lock`, except when the deliverer resigns.
    @usableFromInline
    final let delivery = Atomic<DeliveryWord>(.idle)

    /// The thread delivering states to subscribers, or 0.
    @usableFromInline
    final let deliveringThread = Atomic<UInt>(0)

    /// Entries let go of while a thread called them, kept until those calls are over: a new subscription of the
    /// same target renders only after them (see `ViewModel+Delivery.swift`). Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var leaving: ContiguousArray<SubscriptionRecord<State>> = []

    /// New subscriptions whose first render waits for the end of a call of a `leaving` entry, where the subscribing
    /// thread could not wait for it: the thread that ends that call renders them. Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var handOvers:
        ContiguousArray<(predecessor: SubscriptionRecord<State>, successor: SubscriptionRecord<State>)> =
            []

    /// The trace's switch, kept here so that a write reads it in two loads rather than an accessor call.
    @usableFromInline
    final let traceFlag = TraceSwitch.shared

    /// The slot of each thread's number, kept here for the same reason.
    @usableFromInline
    final let threadKey = ThreadID.key

    /// The calling thread's number, read anew at each use: never kept across an `await`.
    @inlinable
    final var currentThread: UInt { ThreadID.current(threadKey) }

    /// What the running transaction leaves to do once it unlocks. Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var leftovers = TransactionLeftovers<State>()

    /// Whether `leftovers` holds anything, or the model has part models, whose commits its transactions make at
    /// the same point: a transaction of a model with neither tests one flag. Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var hasLeftovers = false

    /// How this model reaches the model whose state holds its own, if it is a part model (see
    /// ``init(_:of:)-(WritableKeyPath<Parent,State>Sendable,_)``): `nil` for every other model. Set once, at creation.
    @usableFromInline
    final let link: PartLink<State>?

    /// The part models whose state is a part of this model's, held weakly. Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var parts: [PartModel<State>] = []

    /// Whether the code of a part model's write runs, in a transaction of this model on its thread: a write of this
    /// model nested in it is refused (see `ViewModel+Parts.swift`). Guarded by `lock`.
    @usableFromInline
    @exclusivity(unchecked)
    final var isWrittenThroughPart = false

    /// Creates a view model holding `initialState`.
    ///
    /// - Parameter initialState: The state subscribers receive until the first transaction commits.
    @inlinable
    public init(initialState: State) {
        link = nil
        current = initialState
        committed = initialState
        // Made here, where an inlined initializer knows the app's state type, so that every subscribe to this
        // model runs its code specialized for that type (see `StateSource.addRecordFunction`).
        super.init { source, target, key, receive in
            unsafeDowncast(source, to: ViewModel<State>.self)
                .subscription(of: target, key: key, replacingLive: false, receive)
        }
    }

    /// Creates a view model whose state is the part at `part` of `parent`'s state: it reads, follows and writes
    /// that part, and its writes are transactions of `parent`.
    ///
    /// Give a child feature a part of its parent's state this way, a sheet's draft or a value that several screens
    /// share, instead of a copy to keep in step:
    ///
    /// ```swift
    /// final class EditViewModel: ViewModel<SyncUp>, @unchecked Sendable {
    ///     init(editing detail: DetailViewModel) {
    ///         super.init(\.syncUp, of: detail)
    ///     }
    ///
    ///     func titleChanged(_ title: String) { write { $0.title = title } }  // commits in `detail` too
    /// }
    /// ```
    ///
    /// - A write commits in one transaction of `parent`: `parent`'s subscribers and this model's see it, and every
    ///   follower of either sees the part change in the same order. A write of `parent` that changes the part
    ///   reaches this model's subscribers as this model's own write would.
    /// - Reading ``state`` gives the part as `parent` last committed it; inside a transaction of `parent` on the
    ///   same thread, the part being built.
    /// - The model keeps `parent` alive; `parent` holds it weakly.
    ///
    /// - Parameters:
    ///   - part: Where the part is in `parent`'s state.
    ///   - parent: The model whose state holds the part.
    public init<Parent>(_ part: any WritableKeyPath<Parent, State> & Sendable, of parent: ViewModel<Parent>) {
        let link = PartOf(parent: parent, read: { $0[keyPath: part] }, write: { $0[keyPath: part] = $1 })
        let initialState = parent.committedPart { $0[keyPath: part] }
        self.link = link
        current = initialState
        committed = initialState
        super.init { source, target, key, receive in
            unsafeDowncast(source, to: ViewModel<State>.self)
                .subscription(of: target, key: key, replacingLive: false, receive)
        }
        link.attach(self)
    }

    /// Creates a view model whose state is the part at `part` of `parent`'s state, while `parent`'s state holds
    /// one there: a sheet's draft in an optional, or an element of a collection found by its identity.
    ///
    /// It behaves as ``init(_:of:)-(WritableKeyPath<Parent,State>Sendable,_)``, with one addition: once `parent`'s state
    /// no longer holds the part (the sheet closed, the element was removed), this model keeps its last state, and
    /// its writes commit nothing, as writes to a screen that is gone. Debug builds say so the first time.
    ///
    /// ```swift
    /// let draft = EditViewModel(\.destination.edit, of: detail)
    /// let meeting = MeetingViewModel(\.meetings[id: id], of: meetings)
    /// ```
    ///
    /// Creating it where `parent`'s state holds no part there is a programmer error: the program stops, naming the
    /// fix.
    ///
    /// - Parameters:
    ///   - part: Where the part is in `parent`'s state, `nil` when there is none.
    ///   - parent: The model whose state holds the part.
    public init<Parent>(_ part: any WritableKeyPath<Parent, State?> & Sendable, of parent: ViewModel<Parent>) {
        guard let initialState = parent.committedPart({ $0[keyPath: part] }) else {
            fatalError(
                "\(Self.self) was made of a part of \(type(of: parent))'s state that holds nothing: make it once the "
                    + "parent's state holds the part, such as after the write that shows the sheet."
            )
        }
        let link = PartOf(parent: parent, read: { $0[keyPath: part] }, write: { $0[keyPath: part] = $1 })
        self.link = link
        current = initialState
        committed = initialState
        super.init { source, target, key, receive in
            unsafeDowncast(source, to: ViewModel<State>.self)
                .subscription(of: target, key: key, replacingLive: false, receive)
        }
        link.attach(self)
    }

    #if DEBUG
        deinit {
            LockOrder.forget(ObjectIdentifier(self))
        }
    #endif

    /// The last committed state; inside a transaction on its own thread, the state being built.
    ///
    /// Reading is allowed anywhere, also inside a transaction of another model: it never waits for a
    /// transaction running on another thread. Assigning is allowed only inside ``write(_:)->()`` or
    /// ``update(_:)``: an assignment anywhere else is a programmer error and stops the program.
    ///
    /// ```swift
    /// write {
    ///     state = .loading
    ///     if cacheIsWarm { state = .loaded(cache) }  // subscribers hear only the final value
    /// }
    /// ```
    public final var state: State {
        @inlinable
        get {
            let thread = currentThread
            if transactionOwner.load(ordering: .relaxed) == thread {
                checkNoDraftAccess()
                return current
            }
            if _slowPath(link != nil), let part = link.unsafelyUnwrapped.partBeingBuilt(on: thread) { return part }
            return snapshotLock.withLock { committed }
        }
        @inlinable
        set {
            if transactionOwner.load(ordering: .relaxed) != currentThread {
                fatalError(
                    "ViewModel.state was set outside a transaction: wrap the change in write { state = … } or "
                        + "update { … }"
                )
            }
            checkNoDraftAccess()
            current = newValue
        }
    }

    /// Runs `transaction` atomically; it changes the model by assigning ``state``.
    ///
    /// The transaction holds the model's lock, so no other transaction of this model interleaves with it.
    /// Subscribers are notified once, after it returns, with the state it committed, and only if that
    /// state differs from the previous one. A transaction started from inside another on the same thread
    /// joins it. If `transaction` throws, the state is restored and nobody is notified.
    ///
    /// Keep transactions short and synchronous. Reading other view models inside is safe; changing them is
    /// not: two transactions that each change the other's model on two threads would deadlock. Change other
    /// models after the transaction returns. Debug builds report the first pair of models seen nested both
    /// ways round (see <doc:ThreadingAndReentrancy>).
    ///
    /// ```swift
    /// viewModel.write {
    ///     viewModel.state = .loaded(items)
    /// }
    /// ```
    ///
    /// - Parameter transaction: Code that assigns ``state`` any number of times.
    /// - Throws: What `transaction` throws, after rolling the state back.
    @inlinable
    public final func write<E: Error>(_ transaction: () throws(E) -> Void) throws(E) {
        try perform(transaction)
    }

    /// Replaces the state with the one `builder` returns, atomically.
    ///
    /// ```swift
    /// viewModel.update { .failed(message: "Offline") }
    /// ```
    ///
    /// - Parameter builder: Returns the new state; it may read ``state`` to derive it.
    /// - Throws: What `builder` throws; the state is then left as it was.
    @inlinable
    public final func update<E: Error>(_ builder: () throws(E) -> State) throws(E) {
        try perform { () throws(E) in
            let newState = try builder()
            checkNoDraftAccess()
            current = newState
        }
    }

    /// The number of live subscribers: views plus view models. Deallocated subscribers do not count.
    ///
    /// - Complexity: O(*n*) in the number of subscriptions.
    public final var subscriberCount: Int {
        changeSubscribers { parked in subscribers.liveCount(parking: &parked) }
    }

    /// The committed state, never the draft of a transaction running on this thread, which may roll back.
    @inlinable
    override package final var currentValue: State {
        committedVersionedState.state
    }

    /// A model follows another under its own identity.
    @inlinable
    override final func key(forFollower follower: AnyObject) -> SubscriptionKey? {
        nil
    }
}

extension ViewModel: TransactionLock {
    @usableFromInline
    final var transactionThread: UInt {
        transactionOwner.load(ordering: .relaxed)
    }
}
