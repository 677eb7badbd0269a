#if DEBUG
    #if canImport(Darwin)
        import Darwin
    #elseif canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// Finds lock-order inversions between view models in debug builds, the first time both orders are seen.
    ///
    /// Changing model B inside a transaction of model A takes B's lock while A's is held: an edge A → B. If
    /// the graph of such edges already leads from B back to A, some code takes the locks the other way round,
    /// and two threads running both at once would deadlock, even if no run ever has. The check reports that
    /// once per pair of models, on standard error, and the program goes on. Release builds compile none of it.
    ///
    /// The models whose transactions a thread runs live in thread-local storage, so a thread that holds no
    /// model's lock (the common case) never touches the shared graph, and the graph's lock adds no ordering
    /// between threads that ThreadSanitizer would otherwise check.
    @usableFromInline
    package enum LockOrder {
        /// Called before a thread takes `model`'s lock for a transaction; `didUnlock` must follow.
        @usableFromInline
        package static func willLockForTransaction(_ model: AnyObject) {
            let held = HeldLocks.ofCurrentThread
            if !held.models.isEmpty { check(taking: model, holding: held.models) }
            held.models.append(HeldLocks.Model(identity: ObjectIdentifier(model), type: type(of: model)))
        }

        /// Called after a thread released the lock it took for a transaction.
        @usableFromInline
        package static func didUnlockAfterTransaction(_ model: AnyObject) {
            let held = HeldLocks.ofCurrentThread
            let identity = ObjectIdentifier(model)
            if let index = held.models.lastIndex(where: { $0.identity == identity }) { held.models.remove(at: index) }
        }

        /// Called before a thread takes `model`'s lock briefly, to change or count its subscribers.
        @usableFromInline
        package static func willLockBriefly(_ model: AnyObject) {
            let held = HeldLocks.ofCurrentThread
            if !held.models.isEmpty { check(taking: model, holding: held.models) }
        }

        /// Forgets a deallocated model, whose identity a new model may reuse.
        @usableFromInline
        package static func forget(_ model: ObjectIdentifier) {
            graph.withLock { $0.remove(model) }
        }

        private static let graph = Locked(Graph())

        private static func check(taking model: AnyObject, holding held: [HeldLocks.Model]) {
            let taken = HeldLocks.Model(identity: ObjectIdentifier(model), type: type(of: model))
            let reports = graph.withLock { graph in
                held.filter { $0.identity != taken.identity }.compactMap { graph.addEdge(from: $0, to: taken) }
            }
            for report in reports { StandardError.writeLine(report) }
        }

        /// Which model's lock was taken while which other one's was held.
        private struct Graph {
            var successors: [ObjectIdentifier: Set<ObjectIdentifier>] = [:]
            var predecessors: [ObjectIdentifier: Set<ObjectIdentifier>] = [:]
            var reported: Set<[ObjectIdentifier]> = []

            /// Records that `taken`'s lock was taken while `holder`'s was held.
            ///
            /// - Returns: The report to print, the first time this pair is seen in both orders.
            mutating func addEdge(from holder: HeldLocks.Model, to taken: HeldLocks.Model) -> String? {
                guard successors[holder.identity]?.contains(taken.identity) != true else { return nil }
                let inverted = leads(from: taken.identity, to: holder.identity)
                successors[holder.identity, default: []].insert(taken.identity)
                predecessors[taken.identity, default: []].insert(holder.identity)
                guard inverted, reported.insert([holder.identity, taken.identity].sorted()).inserted else {
                    return nil
                }
                let outer = String(reflecting: holder.type)
                let inner = String(reflecting: taken.type)
                return """
                    Sobreiro: lock-order inversion between \(outer) and \(inner). A transaction of \(outer) just \
                    took the lock of \(inner) (to change it or its subscribers), and earlier a transaction of \
                    \(inner) took the lock of \(outer), directly or through other models. Two threads doing both \
                    at once deadlock. Fix: change the other model after the transaction returns, or from a \
                    render or onChange handler, not inside the transaction. Reading another model's state \
                    inside a transaction is always safe.
                    """
            }

            func leads(from start: ObjectIdentifier, to goal: ObjectIdentifier) -> Bool {
                var visited: Set<ObjectIdentifier> = [start]
                var pending = [start]
                while let node = pending.popLast() {
                    if node == goal { return true }
                    for next in successors[node] ?? [] where visited.insert(next).inserted {
                        pending.append(next)
                    }
                }
                return false
            }

            mutating func remove(_ model: ObjectIdentifier) {
                for next in successors.removeValue(forKey: model) ?? [] { predecessors[next]?.remove(model) }
                for previous in predecessors.removeValue(forKey: model) ?? [] { successors[previous]?.remove(model) }
                reported = reported.filter { !$0.contains(model) }
            }
        }
    }

    /// The view models whose transaction locks the current thread holds, outermost first.
    final class HeldLocks {
        struct Model {
            let identity: ObjectIdentifier
            let type: Any.Type
        }

        var models: [Model] = []

        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            // The destructor's argument is optional on some C libraries and not on others; `release` takes either.
            let result = pthread_key_create(&key) { pointer in release(pointer) }
            if result != 0 { fatalError("Sobreiro could not create thread-local storage for the lock-order check") }
            return key
        }()

        private static func release(_ pointer: UnsafeMutableRawPointer?) {
            if let pointer { Unmanaged<HeldLocks>.fromOpaque(pointer).release() }
        }

        static var ofCurrentThread: HeldLocks {
            if let pointer = pthread_getspecific(key) {
                return Unmanaged<HeldLocks>.fromOpaque(pointer).takeUnretainedValue()
            }
            let held = HeldLocks()
            pthread_setspecific(key, Unmanaged.passRetained(held).toOpaque())
            return held
        }
    }
#endif
