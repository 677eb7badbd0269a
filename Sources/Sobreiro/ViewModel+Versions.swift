extension ViewModel {
    /// The number of committed changes so far, and the state they led to, read together under the model's lock.
    ///
    /// Inside a transaction on this thread, the version is the one that the transaction started from: it moves
    /// on only when the transaction commits a change. The state is then the one being built.
    ///
    /// Effects compare these versions to decide, inside the transaction that writes a result back, whether the
    /// state their run started from is still the committed one.
    package final var versionedState: (version: UInt64, state: State) {
        // Copied out and compared by the caller: no user-written `==` runs under the lock.
        withLockUnlessInTransaction { (version, current) }
    }

    /// The number of committed changes so far; inside a transaction on this thread, before it commits.
    package final var committedVersion: UInt64 {
        withLockUnlessInTransaction { version }
    }
}
