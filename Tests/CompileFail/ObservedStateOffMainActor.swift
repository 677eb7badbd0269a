// Proves: an ObservedState is main-actor isolated, so code off the main actor cannot read it, and Observation never
// sees a race.
import Sobreiro
import SobreiroObservation

struct PlaylistState: ViewState {
    var title = ""
    var tracks: [String] = []
}

final class PlaylistViewModel: ViewModel<PlaylistState>, @unchecked Sendable {
    init() { super.init(initialState: PlaylistState()) }
}

// expected-note@+1 {{add '@MainActor' to make global function 'title(of:)' part of global actor 'MainActor'}}
func title(of playlist: ObservedState<PlaylistState>) -> String {
    // expected-error@+1 {{main actor-isolated subscript 'subscript(dynamicMember:)' can not be referenced from a nonisolated context}}
    playlist.title
}

// expected-note@+1 {{add '@MainActor' to make global function 'trackCount(of:)' part of global actor 'MainActor'}}
func trackCount(of playlist: ObservedState<PlaylistState>) -> Int {
    // expected-error@+1 {{main actor-isolated subscript 'subscript(_:)' can not be referenced from a nonisolated context}}
    playlist[\.tracks.count]
}

// expected-note@+1 {{add '@MainActor' to make global function 'whole(of:)' part of global actor 'MainActor'}}
func whole(of playlist: ObservedState<PlaylistState>) -> PlaylistState {
    // expected-error@+1 {{main actor-isolated property 'state' can not be referenced from a nonisolated context}}
    playlist.state
}

// expected-note@+1 {{add '@MainActor' to make global function 'observe' part of global actor 'MainActor'}}
func observe(_ model: PlaylistViewModel) -> ObservedState<PlaylistState> {
    // expected-error@+1 {{call to main actor-isolated instance method 'observed()' in a synchronous nonisolated context}}
    model.observed()
}

@MainActor
func readInBackground(_ playlist: ObservedState<PlaylistState>) {
    Task.detached {
        // expected-error@+2 {{main actor-isolated subscript 'subscript(dynamicMember:)' cannot be accessed from outside of the actor}}
        // expected-error@+1 {{non-Sendable type 'KeyPath<PlaylistState, String>' cannot be sent into main actor-isolated context}}
        _ = playlist.title
    }
}
