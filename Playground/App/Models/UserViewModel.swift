import Sobreiro

/// One player, as the app knows them: a name and the points counted so far.
struct UserState: ViewState {
    var name: String
    var points: Int
}

/// A player whose points the live feed updates, from a background task.
final class UserViewModel: ViewModel<UserState>, @unchecked Sendable {
    init(name: String, points: Int) {
        super.init(initialState: UserState(name: name, points: points))
    }

    /// Adds `points`; any thread may call it.
    func award(_ points: Int) {
        write { $0.points += points }
    }
}
