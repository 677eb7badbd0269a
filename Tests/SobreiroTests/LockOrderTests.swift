import Sobreiro
import SobreiroPrimitives
import Testing

final class CartModel: ViewModel<Counter>, @unchecked Sendable {
    init() { super.init(initialState: Counter()) }
}

final class SessionModel: ViewModel<Counter>, @unchecked Sendable {
    init() { super.init(initialState: Counter()) }
}

/// Lock-order inversions are found by debug builds only, and the tests run debug builds.
#if DEBUG
    @Suite("Lock order (debug builds)")
    struct LockOrderTests {
        @Test("R1: changing B inside A, then A inside B, is reported once, naming both types and the fix")
        func inversionOnOneThreadIsReported() async throws {
            let result = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let cart = CartModel()
                let session = SessionModel()
                for _ in 0..<3 {
                    cart.write { session.write { $0.count += 1 } }
                    session.write { cart.write { $0.count += 1 } }
                }
            }
            let report = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(report.ranges(of: "lock-order inversion").count == 1, "reported exactly once")
            #expect(report.contains("SessionModel") && report.contains("CartModel"))
            #expect(report.contains("Fix: change the other model after the transaction returns"))
        }

        @Test("R1: an inversion through a third model is reported")
        func transitiveInversionIsReported() async throws {
            let result = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let cart = CartModel()
                let session = SessionModel()
                let counter = CounterModel()
                cart.write { session.write { $0.count += 1 } }
                session.write { counter.increment() }
                counter.write { cart.write { $0.count += 1 } }
            }
            let report = String(decoding: result.standardErrorContent, as: UTF8.self)
            let pair = "SobreiroTests.CounterModel and SobreiroTests.CartModel"
            #expect(report.contains("lock-order inversion between \(pair)"))
        }

        @Test("R1: subscribing inside a transaction takes the other model's lock and counts as an order")
        func subscribingInsideATransactionCounts() async throws {
            let result = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let cart = CartModel()
                let session = SessionModel()
                cart.write { _ = session.subscriberCount }
                session.write { cart.write { $0.count += 1 } }
            }
            let report = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(report.contains("lock-order inversion"))
        }

        @Test("R1: a consistent order, reads inside transactions, and renders that write are never reported")
        func safePatternsAreNotReported() async throws {
            let result = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let cart = CartModel()
                let session = SessionModel()
                let follower = CounterModel()
                follower.subscribe(to: session) { state in cart.write { $0.count = state.count } }
                cart.subscribe(to: follower) { state in session.write { $0.count = state.count + 1 } }
                for _ in 0..<3 {
                    cart.write { session.write { $0.count += 1 } }
                    session.write { $0.count = cart.state.count }
                    cart.write { $0.count = session.state.count }
                }
            }
            let report = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(!report.contains("lock-order inversion"), "unexpected report: \(report)")
        }

        @Test("R1: orders are tracked per instance, and a released model's orders are forgotten")
        func ordersArePerInstance() async throws {
            let result = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
                for _ in 0..<100 {
                    let cart = CartModel()
                    let session = SessionModel()
                    cart.write { session.write { $0.count += 1 } }
                }
                let cart = CartModel()
                let session = SessionModel()
                session.write { cart.write { $0.count += 1 } }
            }
            let report = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(!report.contains("lock-order inversion"), "unexpected report: \(report)")
        }
    }
#endif
