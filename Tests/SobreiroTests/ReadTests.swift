import Dispatch
import Sobreiro
import SobreiroPrimitives
import TestSupport
import Testing

struct Pair: ViewState {
    var x = 0
    var y = 0
}

@Suite("Reads")
struct ReadTests {
    @Test("V6: two transactions that read each other's model on two threads both finish")
    func crossReadsInsideTransactionsDoNotDeadlock() async {
        // Given two models, each about to read the other from inside its own transaction
        let a = ViewModel(initialState: Pair(x: 1))
        let b = ViewModel(initialState: Pair(y: 2))
        let aIsInside = DispatchSemaphore(value: 0)
        let bIsInside = DispatchSemaphore(value: 0)
        // When both transactions are running at the same moment, each holding its own lock, on threads of their own
        let first = onAnotherThread {
            a.write { state in
                aIsInside.signal()
                bIsInside.wait()
                state.x = b.state.y + 10
            }
        }
        let second = onAnotherThread {
            b.write { state in
                bIsInside.signal()
                aIsInside.wait()
                state.y = a.state.x + 20
            }
        }
        await expectSignalled(first)
        await expectSignalled(second)
        // Then each read a committed state of the other: the initial one, or the other's result if it committed
        // first. They cannot both have seen the other's result.
        let outcome = [a.state.x, b.state.y]
        #expect([[12, 21], [31, 21], [12, 32]].contains(outcome))
    }

    @Test("V6, T4: a read from another thread sees the last committed state, never a transaction's draft")
    func readsSeeCommittedStateWhileATransactionRuns() async {
        let model = CounterModel(count: 1)
        let inside = DispatchSemaphore(value: 0)
        let readDone = DispatchSemaphore(value: 0)
        let observed = Locked<Int?>(nil)
        let reader = onAnotherThread {
            _ = inside.wait(timeout: .now() + patience)
            observed.withLock { $0 = model.state.count }
            readDone.signal()
        }
        // The transaction runs on a thread of its own, which it holds until the reader has read.
        let readInside = Locked(false)
        let draft = Locked<Int?>(nil)
        await expectCompletes {
            model.write {
                model.state.count = 99
                inside.signal()
                // The reader finishes while this transaction still holds the lock.
                readInside.withLock { $0 = readDone.wait(timeout: .now() + patience) == .success }
                draft.withLock { $0 = model.state.count }
            }
        }
        await expectSignalled(reader)
        #expect(readInside.withLock { $0 }, "a read waited for a transaction")
        #expect(draft.withLock { $0 } == 99, "inside its own transaction a thread reads its draft")
        #expect(observed.withLock { $0 } == 1)
        #expect(model.state.count == 99)
    }

    @Test("V6: readers racing writers always see whole committed states")
    func concurrentReadsSeeCommittedStates() async {
        let model = ViewModel(initialState: Pair())
        await expectCompletes {
            race(times: 4) { worker in
                for index in 1...2_000 {
                    if worker.isMultiple(of: 2) {
                        model.write {
                            $0.x = index
                            $0.y = -index
                        }
                    } else {
                        let state = model.state
                        #expect(state.x == -state.y, "a read saw a torn or uncommitted state")
                    }
                }
            }
        }
    }
}
