import Sobreiro

/// The last few things the app did, newest last: what starts and stops as the tabs change.
struct ActivityLog: ViewState {
    static let capacity = 6

    var entries: [String] = []
}

/// Keeps the activity log. Only lifecycle hooks write to it, and they run on the main actor, so its entries
/// come in the same order on every run.
final class ActivityLogViewModel: ViewModel<ActivityLog>, @unchecked Sendable {
    init() {
        super.init(initialState: ActivityLog())
    }

    func note(_ entry: String) {
        write { log in
            log.entries.append(entry)
            log.entries = Array(log.entries.suffix(ActivityLog.capacity))
        }
    }
}
