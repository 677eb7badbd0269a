import ScopeKit
import Testing

/// What only the Combine branch has: ScopeKit's `store(in:)` overloads taking Combine's own subscribers and
/// cancellables, which ScopeKit's tests never produce.
@Suite("Combine branch")
@MainActor
struct CombineBranchTests {
    @Test("a sink stored in willActivate's cancellables receives values only while its behavior is active")
    func sinkInCancellablesStopsOnDeactivation() {
        // Given
        let root = RootScope()
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let behavior = AnonymousBehavior { cancellables in
            subject.sink { received.append($0) }.store(in: &cancellables)
        }

        // When
        root.host(behavior)
        subject.send(1)
        behavior.detach()
        subject.send(2)

        // Then
        #expect(received == [1])
    }

    @Test("a sink stored in whileActiveReceiver ends with the activation, and the next activation does not revive it")
    func sinkInReceiverEndsWithTheActivation() {
        // Given
        let root = RootScope()
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let behavior = AnonymousBehavior { _ in }
        root.host(behavior)

        // When
        subject.sink { received.append($0) }.store(in: behavior.whileActiveReceiver)
        subject.send(1)
        behavior.detach()
        subject.send(2)
        root.host(behavior)
        subject.send(3)

        // Then
        #expect(received == [1])
    }

    @Test("a subscriber that is not type-erased, stored while its behavior is inactive, is cancelled at once")
    func subscriberStoredWhileInactiveIsCancelled() {
        // Given
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { received.append($0) })
        subject.subscribe(sink)
        let behavior = AnonymousBehavior { _ in }

        // When
        sink.store(in: behavior.whileActiveReceiver)
        subject.send(1)

        // Then
        #expect(received.isEmpty)
    }

    @Test("a subscriber that is not type-erased, stored while its behavior is active, lives until deactivation")
    func subscriberStoredWhileActiveLivesUntilDeactivation() {
        // Given
        let root = RootScope()
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let behavior = AnonymousBehavior { _ in }
        root.host(behavior)
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { received.append($0) })
        subject.subscribe(sink)

        // When
        sink.store(in: behavior.whileActiveReceiver)
        subject.send(1)
        behavior.detach()
        subject.send(2)

        // Then
        #expect(received == [1])
    }
}
