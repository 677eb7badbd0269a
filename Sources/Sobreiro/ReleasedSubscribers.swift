/// Subscriptions that the subscriber list let go of under the model's lock, carried out of the critical
/// section so that they are released after the lock is.
///
/// Releasing an entry can run user code: its handler closure may hold the last reference to an object whose
/// `deinit` subscribes, writes or cancels on the same model, and would deadlock on its lock. One entry needs no
/// collection, so the common removals allocate nothing, and no removal costs only an empty case.
@usableFromInline
enum ReleasedSubscribers<State: ViewState> {
    case none
    case one(SubscriptionRecord<State>)
    case many(ContiguousArray<SubscriptionRecord<State>>)

    @inlinable
    var isEmpty: Bool {
        if case .none = self { return true }
        return false
    }

    /// Keeps `subscriber` until these entries are settled.
    @inlinable
    mutating func append(_ subscriber: consuming SubscriptionRecord<State>) {
        switch consume self {
        case .none:
            self = .one(subscriber)
        case .one(let first):
            self = .many([first, subscriber])
        case .many(var entries):
            entries.append(subscriber)
            self = .many(entries)
        }
    }

    /// Takes over the entries of `other`, leaving it empty.
    @inlinable
    mutating func take(_ other: inout Self) {
        switch other {
        case .none:
            return
        case .one(let subscriber):
            append(subscriber)
        case .many(let entries):
            for subscriber in entries { append(subscriber) }
        }
        other = .none
    }

    /// Calls `body` with each entry.
    @inlinable
    borrowing func forEach(_ body: (SubscriptionRecord<State>) -> Void) {
        switch self {
        case .none:
            return
        case .one(let subscriber):
            body(subscriber)
        case .many(let entries):
            for subscriber in entries { body(subscriber) }
        }
    }

    /// Whether a thread other than `thread` holds the call slot of one of these entries.
    @inlinable
    borrowing func isCalled(byOtherThanThread thread: UInt) -> Bool {
        switch self {
        case .none:
            return false
        case .one(let subscriber):
            let holder = subscriber.slot.holder
            return holder != 0 && holder != thread
        case .many(let entries):
            return entries.contains { entry in
                let holder = entry.slot.holder
                return holder != 0 && holder != thread
            }
        }
    }

    /// Waits for the calls of these subscriptions that other threads are running (when this thread may wait;
    /// see `SubscriptionRecord.waitForCallToEnd`); the entries go when the caller drops these. Call it with no lock
    /// held. Borrowing, so that the one entry of the common case is not retained for the wait.
    @inlinable
    borrowing func settle() {
        forEach { $0.waitForCallToEnd() }
    }
}
