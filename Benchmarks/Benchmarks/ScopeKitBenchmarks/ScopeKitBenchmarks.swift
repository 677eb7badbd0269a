import Benchmark
import ScopeKit

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .instructions],
        maxDuration: .seconds(2),
        maxIterations: 200
    )

    for size in [1_000, 10_000] {
        Benchmark("activate+deactivate a tree of \(size) nodes") { benchmark async in
            let rounds = benchmark.scaledIterations.count
            await MainActor.run { activateAndDeactivate(treeOf: size, rounds: rounds) }
        }
    }

    Benchmark("attach+detach one behavior", configuration: .init(scalingFactor: .kilo)) { benchmark async in
        let rounds = benchmark.scaledIterations.count
        await MainActor.run { attachAndDetach(rounds: rounds) }
    }
}

/// A tree of `size` scopes, ten children to a parent, attached to an active root and detached again.
@MainActor
func activateAndDeactivate(treeOf size: Int, rounds: Int) {
    let root = RootScope()
    let top = Scope()
    var scopes = [top]
    var count = 1
    while count < size {
        let parent = scopes[(count - 1) / 10]
        let child = Scope()
        parent.host(child)
        scopes.append(child)
        count += 1
    }
    for _ in 0..<rounds {
        root.host(top)
        top.detach()
    }
}

@MainActor
func attachAndDetach(rounds: Int) {
    let root = RootScope()
    let behavior = AnonymousBehavior { _ in }
    for _ in 0..<rounds {
        root.host(behavior)
        behavior.detach()
    }
}
