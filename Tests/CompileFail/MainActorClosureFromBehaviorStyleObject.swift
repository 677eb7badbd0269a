// Proves: a @MainActor object that wires two view models cannot hand them a closure that writes its own state.
import Sobreiro

struct SessionState: ViewState {
    var userName = ""
}

struct DashboardState: ViewState {
    var greeting = ""
}

final class SessionViewModel: ViewModel<SessionState>, @unchecked Sendable {
    init() { super.init(initialState: SessionState()) }
}

final class DashboardModel: ViewModel<DashboardState>, @unchecked Sendable {
    init() { super.init(initialState: DashboardState()) }
}

@MainActor
final class Screen {
    let dashboard: DashboardModel
    var title = ""  // expected-note {{mutation of this property is only permitted within the actor}}

    init(dashboard: DashboardModel) { self.dashboard = dashboard }

    func start(session: SessionViewModel) {
        dashboard.subscribe(to: session) { [self] session in
            // expected-error@+1 {{main actor-isolated property 'title' can not be mutated from a Sendable closure}}
            self.title = session.userName
        }
    }
}
