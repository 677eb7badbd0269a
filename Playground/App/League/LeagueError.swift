/// Why a request to the league failed.
enum LeagueError: Error, CustomStringConvertible {
    case networkUnreachable

    var description: String {
        switch self {
        case .networkUnreachable: "The network is unreachable."
        }
    }
}
