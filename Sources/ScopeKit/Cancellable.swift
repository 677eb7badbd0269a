#if canImport(Combine)
    @_exported public import Combine
#else
    import Synchronization

    /// Something whose work can be stopped. Mirrors Combine's protocol of the same name on platforms without
    /// Combine, so code that stores cancellables reads the same everywhere.
    public protocol Cancellable {
        /// Stops the work. Calling it more than once has no further effect.
        func cancel()
    }

    extension Cancellable where Self: Sendable {
        /// Wraps this cancellable in an ``AnyCancellable`` and adds it to `set`.
        ///
        /// Only a `Sendable` cancellable can be stored: the set may be cancelled, or released, on any thread.
        ///
        /// - Parameter set: The set that owns the cancellable from now on.
        public func store(in set: inout Set<AnyCancellable>) {
            AnyCancellable(self).store(in: &set)
        }
    }

    /// A type-erased cancellable that cancels itself when it is deallocated.
    ///
    /// Mirrors Combine's `AnyCancellable` on platforms without Combine. Cancelling is thread-safe and runs
    /// the cancel action at most once.
    ///
    /// ```swift
    /// let timer = AnyCancellable { stopTimer() }
    /// timer.store(in: &cancellables)
    /// ```
    ///
    /// An `AnyCancellable` is `Sendable`: whoever holds the last reference, on whatever thread, runs the cancel
    /// action. So it wraps only `Sendable` work, and the compiler checks it. A class that is not `Sendable` and
    /// must be stopped on the main actor can be wrapped with a closure that hops there:
    ///
    /// ```swift
    /// AnyCancellable { Task { @MainActor in poller.stop() } }
    /// ```
    public final class AnyCancellable: Cancellable, Hashable, Sendable {
        /// Touched only by `init` and by the one caller of `cancel()` that wins `isCancelled`, which lets it go
        /// after running it, so that a cancellable whose action refers back to it leaves no cycle once cancelled.
        nonisolated(unsafe) private var action: (@Sendable () -> Void)?
        private let isCancelled = Atomic<Bool>(false)

        /// Creates a cancellable that runs `cancel` the first time it is cancelled or deallocated.
        ///
        /// - Parameter cancel: The action that stops the work.
        public init(_ cancel: @escaping @Sendable () -> Void) {
            action = cancel
        }

        /// Creates a cancellable that cancels `cancellable` the first time it is cancelled or deallocated.
        ///
        /// `cancellable` must be `Sendable`, because its `cancel()` runs on the thread that cancels or releases
        /// this wrapper, which may not be the one that made it.
        ///
        /// - Parameter cancellable: The cancellable to wrap.
        public init(_ cancellable: some Cancellable & Sendable) {
            action = { cancellable.cancel() }
        }

        deinit {
            cancel()
        }

        /// Runs the cancel action, once, then lets it go.
        public func cancel() {
            guard !isCancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            let action = action.take()
            action?()
        }

        /// Adds this cancellable to `set`, which then owns it.
        ///
        /// - Parameter set: The set to store into.
        public func store(in set: inout Set<AnyCancellable>) {
            set.insert(self)
        }

        /// Appends this cancellable to `collection`, which then owns it.
        ///
        /// - Parameter collection: The collection to store into.
        public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
            collection.append(self)
        }

        /// Two values are equal when they are the same instance.
        public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool {
            lhs === rhs
        }

        /// Hashes the identity of the instance.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(self))
        }
    }
#endif

extension Task {
    /// Cancels this task when `set` cancels or releases its cancellables.
    ///
    /// ```swift
    /// Task { await refresh() }.store(in: &cancellables)
    /// ```
    ///
    /// - Parameter set: The set that owns the task's cancellation from now on.
    public func store(in set: inout Set<AnyCancellable>) {
        AnyCancellable { self.cancel() }.store(in: &set)
    }

    /// Cancels this task when `receiver`'s behavior deactivates (at once, if it is not active).
    ///
    /// - Parameter receiver: The receiver of a behavior, such as ``Behavior/whileActiveReceiver``.
    @MainActor
    public func store(in receiver: WhileActiveReceiver) {
        AnyCancellable { self.cancel() }.store(in: receiver)
    }
}
