import ScopeKit
import Testing

@Suite("Cancellables")
@MainActor
struct CancellableTests {
    @Test("AnyCancellable cancels once, and on deinit if never cancelled")
    func cancelsOnceAndOnDeinit() {
        let counter = CancelCounter()
        let cancellable = counter.cancellable()
        cancellable.cancel()
        cancellable.cancel()
        #expect(counter.count == 1)
        do { _ = counter.cancellable() }
        #expect(counter.count == 2)
    }

    @Test("AnyCancellable lets its action go once cancelled, so an action that holds it leaves no cycle")
    func releasesActionOnCancel() {
        final class Owner: Sendable {
            nonisolated(unsafe) var cancellable: AnyCancellable?
        }
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            owner.cancellable = AnyCancellable { _ = owner }
            owner.cancellable?.cancel()
        }
        #expect(weakOwner == nil)
    }

    @Test("AnyCancellable wraps another cancellable and stores into sets and arrays")
    func wrapsAndStores() {
        let counter = CancelCounter()
        var set = Set<AnyCancellable>()
        AnyCancellable(counter.cancellable()).store(in: &set)
        var array: [AnyCancellable] = []
        counter.cancellable().store(in: &array)
        #expect(set.count == 1 && array.count == 1)
        set.removeAll()
        array.removeAll()
        #expect(counter.count == 2)
    }

    @Test("a Task is stored in one call and cancelled with its activation")
    func taskIsCancelledOnDeactivation() async {
        let root = RootScope()
        let started = AsyncStream<Void>.makeStream()
        let finished = AsyncStream<Bool>.makeStream()
        let behavior = AnonymousBehavior { cancellables in
            Task {
                started.continuation.yield()
                while !Task.isCancelled { await Task.yield() }
                finished.continuation.yield(true)
            }.store(in: &cancellables)
        }
        root.host(behavior)
        var startedIterator = started.stream.makeAsyncIterator()
        await startedIterator.next()
        behavior.detach()
        var finishedIterator = finished.stream.makeAsyncIterator()
        #expect(await finishedIterator.next() == true)
    }

    // ScopeKit's own AnyCancellable promises an atomic cancel and is Sendable; Combine's promises neither, so
    // this test exists only where ScopeKit defines the type.
    #if !canImport(Combine)
        @Test("cancelling from many threads runs the action exactly once")
        func concurrentCancelRunsOnce() async {
            let counter = CancelCounter()
            for _ in 0..<200 {
                let cancellable = counter.cancellable()
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 { group.addTask { cancellable.cancel() } }
                }
            }
            #expect(counter.count == 200)
        }
    #endif
}
