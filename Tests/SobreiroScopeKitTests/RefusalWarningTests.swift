import ScopeKit
import Sobreiro
import SobreiroScopeKit
import Testing

/// A behavior whose type names where a model was bound first.
private final class FirstScreen: Behavior {}

/// A behavior whose type names where the same model was bound again.
private final class SecondScreen: Behavior {}

/// Refusals return a discardable value, so debug builds print a warning the first time, in a child process whose
/// standard error the test reads.
@Suite("B1: a refused binding is never silent")
struct RefusalWarningTests {
    #if DEBUG
        @Test("B1: binding a model bound elsewhere prints one warning naming both behaviors and the fix")
        func refusedBindingWarnsOnce() async {
            let child = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                await MainActor.run {
                    let model = FeedModel()
                    let first = FirstScreen()
                    let second = SecondScreen()
                    first.bind(model)
                    second.bind(model)
                    second.bind(model)
                    precondition(second.bind(model) == .refused(.alreadyBoundToAnotherBehavior))
                    withExtendedLifetime(first) {}
                }
            }
            let stderr = String(decoding: child?.standardErrorContent ?? [], as: UTF8.self)
            let warnings = stderr.split(separator: "\n").filter { $0.hasPrefix("Sobreiro: bind(_:) refused") }
            #expect(warnings.count == 1, "\(stderr.prefix(600))")
            let warning = warnings.first ?? ""
            #expect(warning.contains("FeedModel"))
            #expect(warning.contains("to SecondScreen"), "the behavior it was bound to now")
            #expect(warning.contains("already bound to FirstScreen"), "the behavior that holds it")
            #expect(warning.contains("bind a new instance"), "the fix")
        }

        @Test("B1: sending to a trigger no effect listens to prints one warning through the same mechanism")
        func inactiveTriggerWarnsOnce() async {
            let child = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let trigger = EffectInput<Int>()
                trigger.send(1)
                trigger.send(2)
            }
            let stderr = String(decoding: child?.standardErrorContent ?? [], as: UTF8.self)
            let warnings = stderr.split(separator: "\n").filter { $0.hasPrefix("Sobreiro: EffectInput<Int>") }
            #expect(warnings.count == 1, "\(stderr.prefix(600))")
        }

        @Test("B1: work given to an activation that has ended prints one warning naming the form and the model")
        func workForAnEndedActivationWarnsOnce() async {
            let child = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                await MainActor.run {
                    var kept: Activation<FeedModel>?
                    let model = FeedModel { _, activation in kept = activation }
                    let root = RootScope()
                    let behavior = hostBound(model, under: root)
                    behavior.detach()
                    guard let activation = kept else { preconditionFailure("the model never became active") }
                    precondition(!activation.task {})
                    precondition(!activation.effect(.when { _ in true }, run: { _ in 1 }, reduce: { _, _ in }))
                    // The model keeps the closure, which keeps the activation, which keeps the model: the test's own
                    // cycle, broken so that LeakSanitizer finds nothing left when the child process exits.
                    kept = nil
                }
            }
            let stderr = String(decoding: child?.standardErrorContent ?? [], as: UTF8.self)
            let warnings = stderr.split(separator: "\n").filter { $0.contains("given to an activation") }
            #expect(warnings.count == 1, "\(stderr.prefix(600))")
            let warning = warnings.first ?? ""
            #expect(warning.hasPrefix("Sobreiro: task at SobreiroScopeKitTests/RefusalWarningTests.swift:"))
            #expect(warning.contains("of FeedModel that has ended"))
            #expect(warning.contains("didBecomeActive(_:)"), "the fix")
        }
    #endif
}
