import Benchmark
import ScopeKit

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        maxDuration: .seconds(2),
        maxIterations: 200
    )

    for size in [1_000, 10_000] {
        Benchmark("activate+deactivate a tree of \(size) nodes") { benchmark async in
            nonisolated(unsafe) let benchmark = benchmark
            await MainActor.run {
                let (root, top) = makeTree(of: size)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    root.host(top)
                    top.detach()
                }
                benchmark.stopMeasurement()
            }
        }
    }

    Benchmark("attach+detach one behavior", configuration: .init(scalingFactor: .kilo)) { benchmark async in
        nonisolated(unsafe) let benchmark = benchmark
        await MainActor.run {
            let root = RootScope()
            let behavior = AnonymousBehavior { _ in }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                root.host(behavior)
                behavior.detach()
            }
            benchmark.stopMeasurement()
        }
    }
}

/// A detached tree of `size` scopes, ten children to a parent, and an active root to attach it to.
@MainActor
func makeTree(of size: Int) -> (RootScope, Scope) {
    let top = Scope()
    var scopes = [top]
    while scopes.count < size {
        let child = Scope()
        scopes[(scopes.count - 1) / 10].host(child)
        scopes.append(child)
    }
    return (RootScope(), top)
}
