// Proves: where ScopeKit defines AnyCancellable itself (no Combine), a cancellable that is not Sendable cannot be
// wrapped or stored, because an AnyCancellable runs its cancel on whatever thread cancels or releases it.
// Without Combine only: Combine's own AnyCancellable takes any cancellable.
import ScopeKit

// expected-note@+1 3 {{class 'Poller' does not conform to the 'Sendable' protocol}}
final class Poller: Cancellable {
    var isRunning = true
    func cancel() { isRunning = false }
}

@MainActor
func start(_ poller: Poller, in behavior: Behavior, cancellables: inout Set<AnyCancellable>) {
    // expected-error@+1 {{type 'Poller' does not conform to the 'Sendable' protocol}}
    _ = AnyCancellable(poller)
    // expected-error@+1 {{type 'Poller' does not conform to the 'Sendable' protocol}}
    poller.store(in: &cancellables)
    // expected-error@+1 {{type 'Poller' does not conform to the 'Sendable' protocol}}
    poller.store(in: behavior.whileActiveReceiver)
}
