/// One thing that happened inside a view model or a scope tree. See ``Trace``.
public struct TraceEvent: Sendable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// A transaction committed a new state.
        case committed
        /// A transaction committed a state equal to the previous one, so nobody is told.
        case deduplicated
        /// A transaction threw and left the state as it was.
        case rolledBack
        /// A subscriber received a state; the associated value names the subscriber's type.
        case delivered(to: String)
        /// A state for a main-actor subscriber was scheduled on the main actor.
        case hopped(to: String)
        /// A behavior moved from one lifecycle state to another (`detached`, `attached`, `active`).
        case transition(from: String, to: String)
        /// A lifecycle hook ran: a behavior's `willActivate`, or a bound model's `didBecomeActive`.
        case hook(String)
        /// An observed object took a new state and told `Observation` which of the fields read from it changed;
        /// the associated value names them as key paths (`\State.title`), and is empty when none did.
        case invalidated(fields: [String])
    }

    /// What happened.
    public let kind: Kind

    /// The type of the view model or behavior the event is about.
    public let subjectType: String

    /// The identity of the view model or behavior the event is about.
    public let subject: ObjectIdentifier

    /// The thread the event happened on: `main`, or `thread N`, numbered in order of appearance.
    public let thread: String

    init(kind: Kind, subject: AnyObject, thread: String) {
        self.kind = kind
        subjectType = String(describing: type(of: subject))
        self.subject = ObjectIdentifier(subject)
        self.thread = thread
    }

    /// One line: the subject, what happened, and the thread.
    public var description: String {
        let what =
            switch kind {
            case .committed: "committed"
            case .deduplicated: "deduplicated (equal state, nobody told)"
            case .rolledBack: "rolled back"
            case .delivered(let subscriber): "→ \(subscriber)"
            case .hopped(let subscriber): "⇢ main actor, for \(subscriber)"
            case .transition(let from, let to): "\(from) → \(to)"
            case .hook(let name): name
            case .invalidated(let fields):
                fields.isEmpty ? "invalidates no field read" : "invalidates \(fields.joined(separator: ", "))"
            }
        return "\(subjectType) \(what) [\(thread)]"
    }
}
