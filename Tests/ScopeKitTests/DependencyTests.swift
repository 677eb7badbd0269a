import ScopeKit
import Testing

private enum GreetingKey: DependencyKey {
    static let defaultValue = "default"
}

private enum TokenKey: DependencyKey {
    typealias Value = String
}

/// Reads `GreetingKey` at each attach and activation.
@MainActor
private final class Reader: Behavior {
    var readAtAttach: [String] = []
    var readAtActivation: [String] = []

    override func willAttach() {
        readAtAttach.append(dependency(GreetingKey.self))
    }

    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        readAtActivation.append(dependency(GreetingKey.self))
    }
}

private final class TokenReader: Behavior {
    override func willActivate(cancellables: inout Set<AnyCancellable>) {
        _ = dependency(TokenKey.self)
    }
}

@Suite @MainActor struct DependencyTests {
    @Test func aKeyNobodyProvidesReadsItsDefault() {
        let root = RootScope()
        let reader = Reader()
        root.host(reader)
        #expect(reader.readAtAttach == ["default"])
        #expect(reader.readAtActivation == ["default"])
    }

    @Test func theNearestProviderWinsAndAScopeReadsWhatItProvides() {
        let root = RootScope()
        root.provide(GreetingKey.self, "root")
        let outer = Scope()
        let inner = Scope()
        inner.provide(GreetingKey.self, "inner")
        let outerReader = Reader()
        let innerReader = Reader()
        root.host(outer)
        outer.host([outerReader, inner])
        inner.host(innerReader)
        #expect(outerReader.readAtActivation == ["root"])
        #expect(innerReader.readAtActivation == ["inner"])
        #expect(inner.dependency(GreetingKey.self) == "inner")
        #expect(outer.dependency(GreetingKey.self) == "root")
    }

    @Test func theOutermostOverrideBeatsEveryProviderInside() {
        let root = RootScope()
        let feature = Scope()
        feature.provide(GreetingKey.self, "live")
        let middle = Scope()
        middle.override(GreetingKey.self, "inner override")
        let reader = Reader()
        feature.host(reader)
        middle.host(feature)
        root.override(GreetingKey.self, "test")
        root.host(middle)
        #expect(reader.readAtActivation == ["test"])
        root.withdraw(GreetingKey.self)
        #expect(reader.dependency(GreetingKey.self) == "inner override")
        middle.withdraw(GreetingKey.self)
        #expect(reader.dependency(GreetingKey.self) == "live")
    }

    @Test func severalValuesAtOnce() {
        var values = DependencyValues()
        values[GreetingKey.self] = "provided"
        values[TokenKey.self] = "token"
        #expect(values[TokenKey.self] == "token")
        values[TokenKey.self] = nil
        #expect(values[TokenKey.self] == nil)
        #expect(!values.isEmpty)
        let root = RootScope()
        root.provide(values)
        let reader = Reader()
        root.host(reader)
        #expect(reader.readAtActivation == ["provided"])
    }

    @Test func aSubtreeMovedToAnotherHostResolvesAgainAtItsNextAttach() {
        let root = RootScope()
        let first = Scope()
        first.provide(GreetingKey.self, "first")
        let second = Scope()
        second.provide(GreetingKey.self, "second")
        root.host([first, second])
        let screen = Scope()
        let reader = Reader()
        screen.host(reader)
        first.host(screen)
        #expect(reader.readAtActivation == ["first"])

        second.host(screen)

        #expect(reader.readAtActivation == ["first", "second"])
        // The reader stayed attached to `screen`; the move re-attached `screen`, and the reader reads anew.
        #expect(reader.readAtAttach == ["default"])
        #expect(reader.dependency(GreetingKey.self) == "second")
    }

    @Test func aProviderAddedLaterIsSeenByTheReadsThatFollow() {
        let root = RootScope()
        let reader = Reader()
        root.host(reader)
        root.provide(GreetingKey.self, "late")
        reader.detach()
        root.host(reader)
        #expect(reader.readAtActivation == ["default", "late"])
        #expect(reader.readAtAttach == ["default", "late"])
    }

    @Test func aKeyWithNoDefaultAndNoProviderTrapsNamingTheKeyAndThePath() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let root = RootScope()
                let screen = Scope()
                root.host(screen)
                screen.host(TokenReader())
            }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("No value for TokenKey at RootScope → Scope → TokenReader"))
    }

    @Test func readingWhileDetachedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { _ = Behavior().dependency(GreetingKey.self) }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("read dependencies once the behavior is attached"))
    }
}
