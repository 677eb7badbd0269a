import Foundation
import ScopeKit
import Sobreiro
import SobreiroScopeKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Soak")
struct SoakTests {
    /// 100 000 writes in CI; `SOBREIRO_SOAK=1` runs the full 1 000 000.
    static let writes = getenv("SOBREIRO_SOAK") == nil ? 100_000 : 1_000_000

    @Test("writes with subscribers and scopes churning throughout keep resident memory flat (own process)")
    func memoryStaysFlat() async throws {
        let result = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
            await MainActor.run { soak(writes: SoakTests.writes) }
        }
        // The figures, for the record: the process reports its resident memory at each sample.
        print(String(decoding: result.standardErrorContent, as: UTF8.self), terminator: "")
    }
}

/// Writes `writes` times to a source model that a bound model follows, while views come and go and the bound
/// behavior detaches and re-attaches; samples resident memory ten times and stops the process if it grew.
@MainActor
private func soak(writes: Int) {
    let root = RootScope()
    let source = ViewModel(initialState: Feed())
    let behavior = Behavior()
    let follower = FeedModel { model, activation in
        model.subscribe(to: source, onChange: FeedModel.upstreamDidChange).store(in: activation)
        model.subscribe(view: FeedView()).store(in: activation)  // a view that dies at once: pruned as it goes
    }
    behavior.bind(follower)
    root.host(behavior)
    var views: [FeedView] = []
    var samples: [Int] = []
    let warmUp = writes / 10

    for count in 1...writes {
        source.write { $0.count = count }
        if count % 100 == 0 {
            let view = FeedView()
            source.subscribe(view: view)
            views.append(view)
            if views.count > 20 { views.removeFirst() }  // the oldest view dies
        }
        if count % 5_000 == 0 {
            behavior.detach()
            root.host(behavior)
        }
        if count > warmUp && count % (writes / 10) == 0 { samples.append(residentBytes()) }
    }

    let mebibytes = samples.map { String(format: "%.1f", Double($0) / 1_048_576) }.joined(separator: ", ")
    let line = "soak: \(writes) writes; resident memory at each tenth after warm-up, MiB: \(mebibytes)\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    precondition(follower.state.count == writes, "the follower missed the last state")
    precondition(source.subscriberCount <= 22, "dead views were not pruned: \(source.subscriberCount) live")
    guard !isAddressSanitizerActive, let first = samples.first, let peak = samples.max() else { return }
    // Generous: the allocator may keep a few pages; a leak of one object per write would be tens of MiB.
    precondition(peak - first < 8 * 1024 * 1024, "resident memory grew by \(peak - first) bytes: \(samples)")
}

/// The resident memory of this process, from `/proc` where it exists.
private func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * 4096
}
