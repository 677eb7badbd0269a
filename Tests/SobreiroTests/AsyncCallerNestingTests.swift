import Dispatch
import Foundation
import Sobreiro
import Synchronization
import TestSupport
import Testing

/// A task executor with two threads of its own; each job runs on the thread that `target` names when it is queued.
/// A test moves a task from one thread to the other at an `await` it chooses, which the cooperative pool never
/// promises. The threads are `Thread`s, not dispatch queues, whose jobs may run on any worker, one worker after
/// another.
private final class TwoThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// Which thread runs the jobs queued from now on: 0 or 1.
    let target = Atomic<Int>(0)
    private let threads = [JobThread(), JobThread()]

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        threads[target.load(ordering: .acquiring)].run { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `body` on thread `index`, after the work already queued there.
    func run(on index: Int, _ body: @escaping @Sendable () -> Void) {
        threads[index].run(body)
    }

    /// Ends both threads once their queued work has run.
    func stop() {
        for thread in threads { thread.stop() }
    }
}

/// A thread that runs the closures given to it, in order, until it is stopped after the last.
private final class JobThread: Sendable {
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private let posted = DispatchSemaphore(value: 0)

    init() {
        Thread { [self] in
            while true {
                posted.wait()
                // One closure per signal; the signal of `stop()` finds none.
                guard let next = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
                next()
            }
        }.start()
    }

    func run(_ body: @escaping @Sendable () -> Void) {
        queue.withLock { $0.append(body) }
        posted.signal()
    }

    func stop() {
        posted.signal()
    }
}

@Suite("Transactions from async callers")
struct AsyncCallerNestingTests {
    /// Two writes in one async function, with a suspension between them that resumes on another thread. In an
    /// optimized build, a write inlined into the function must not reuse the thread it ran on before the
    /// suspension: that thread is now inside a transaction of the same model, and a write that believed itself on
    /// it would join that transaction without the lock.
    @Test("a write after an await that moved the task to another thread waits for the transaction running there")
    func writeAfterSuspensionTakesTheLock() async {
        // Given: an executor whose first thread will hold a transaction open when the task resumes on the second.
        let model = ViewModel(initialState: Counter())
        let executor = TwoThreadExecutor()
        let holderInside = DispatchSemaphore(value: 0)
        let secondWriteDone = DispatchSemaphore(value: 0)
        let overlapped = Atomic<Bool>(false)
        let (holderEnded, endHolder) = AsyncStream<Void>.makeStream()

        // When: the task writes on the first thread, moves to the second, and writes again while the first thread
        // is inside a transaction.
        let holderEntered = await Task(executorPreference: executor) {
            model.write { $0.count += 1 }
            executor.target.store(1, ordering: .releasing)
            executor.run(on: 0) {
                model.write { state in
                    state.count += 100
                    holderInside.signal()
                    // A write that joined this transaction finishes while it is still open.
                    if secondWriteDone.wait(timeout: .now() + .milliseconds(500)) == .success {
                        overlapped.store(true, ordering: .relaxed)
                        secondWriteDone.signal()
                    }
                }
                endHolder.finish()
            }
            await Task.yield()
            // On the second thread now, a thread of the test's own: waiting here blocks no other task.
            let holderEntered = holderInside.wait(timeout: .now() + patience) == .success
            model.write { $0.count += 1 }
            secondWriteDone.signal()
            return holderEntered
        }.value
        for await _ in holderEnded {}
        executor.stop()

        // Then: the second write waited for the transaction and lost nothing.
        #expect(holderEntered, "the transaction on the first thread never started")
        let joined = overlapped.load(ordering: .relaxed)
        #expect(!joined, "a write joined another thread's transaction")
        #expect(model.state.count == 102)
    }
}
