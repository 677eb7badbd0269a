import SobreiroPrimitives

extension ViewModel {
    /// The number of committed changes so far, and the state they led to, read together under the model's lock.
    ///
    /// Inside a transaction on this thread, the version is the one that the transaction started from: it moves
    /// on only when the transaction commits a change. The state is then the one being built.
    ///
    /// An effect checks a run's trigger against this copy, outside the lock; the transaction that writes the
    /// run's result back then only compares ``committedVersion`` with this version, to know that nothing committed
    /// in between.
    package final var versionedState: (version: UInt64, state: State) {
        // Copied out and checked by the caller: no user-written code runs under the lock.
        withLockUnlessInTransaction { (version, current) }
    }

    /// The last committed state and its version, read together from the snapshot that ``state`` reads, so it
    /// never waits for a transaction. Inside a transaction on this thread, where ``state`` is the draft being
    /// built, it is the state that the transaction started from.
    @usableFromInline
    package final var committedVersionedState: (version: UInt64, state: State) {
        snapshotLock.withLock { (committedSnapshotVersion, committed) }
    }

    /// The number of committed changes so far; inside a transaction on this thread, before it commits.
    package final var committedVersion: UInt64 {
        withLockUnlessInTransaction { version }
    }
}
