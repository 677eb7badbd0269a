import ScopeKit
import Testing

/// A scope whose type names the host that was refused.
private final class ListScope: Scope {}

/// A refused attachment returns a discardable value, so debug builds print a warning the first time, in a child
/// process whose standard error the test reads.
@Suite("S6: a refused attachment is never silent")
struct RefusalWarningTests {
    #if DEBUG
        @Test("S6: attaching under a descendant, now or queued from a hook, prints one warning with the reason")
        func refusedAttachmentWarnsOnce() async {
            let child = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                await MainActor.run {
                    let root = RootScope()
                    let parent = Scope()
                    let list = ListScope()
                    root.host(parent)
                    parent.host(list)
                    precondition(parent.attach(to: list) == .refused(.cannotAttachToDescendant))
                    precondition(list.attach(to: list) == .refused(.cannotAttachToItself))
                    root.host(
                        AnonymousBehavior { _ in
                            _ = parent.attach(to: list)
                        })
                }
            }
            let stderr = String(decoding: child?.standardErrorContent ?? [], as: UTF8.self)
            let warnings = stderr.split(separator: "\n").filter { $0.hasPrefix("Sobreiro: attach(to:) refused") }
            #expect(warnings.count == 1, "\(stderr.prefix(600))")
            let warning = warnings.first ?? ""
            #expect(warning.contains("attach Scope to ListScope"), "the behavior and its would-be host")
            #expect(warning.contains("cycle; detach the host first"), "the reason and the fix")
        }
    #endif
}
