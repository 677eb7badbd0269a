import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import TestSupport

/// The real library, driven by operations, next to the `Reference` that says what it should do.
///
/// The world owns every object of a run: the plain models, the views, the nodes it holds and the root. It
/// applies each operation to the library and to the reference; `World+Checks.swift` compares them.
@MainActor
final class World {
    struct ViewSlot {
        let id: Int
        let probe: AnyProbe
        weak var model: ViewModel<Tally>?
        /// A `.subscribe` or `.unsubscribe` reaction that has not fired yet. It fires at the second render, the
        /// first one a change brings, so that it runs inside a delivery round, among other subscribers.
        var pendingReaction: Reaction
        var rendersBeforeReaction = 1
        var isSubscribed = false
        /// Inside `subscribe(view:)` for this view, whose renders may subscribe it again.
        var isSubscribing = false
        var token: StateSubscription?
        /// The token of the subscription before `token`: cancelling it must change nothing.
        var staleToken: StateSubscription?
    }

    struct NodeRecord {
        weak var node: ProbeNode?
        weak var model: ScopedTally?
        let work: WorkCounter
        let modelWork: WorkCounter
    }

    struct Watched {
        let name: String
        weak var object: AnyObject?
    }

    var reference: Reference
    /// Whether hooks skip the changes that run into the issues `KnownIssueTests` reproduce.
    let avoidsKnownIssues: Bool
    let journal = Journal()
    let effects = EffectsFlag()
    var models: [PlainTally] = []
    var modelIDs: [Int] = []
    var views: [ViewSlot?] = Array(repeating: nil, count: Slots.views)
    var nodeSlots: [Int?] = Array(repeating: nil, count: Slots.nodes)
    var heldNodes: [Int: ProbeNode] = [:]
    var records: [Int: NodeRecord] = [:]
    var root: RootScope?
    var rootID: Int
    var followTokens: [(id: Int, token: StateSubscription)] = []
    /// Everything the run created, to prove at the end that releasing the world releases all of it.
    var watched: [Watched] = []
    /// Objects the current step let go of, which must be gone when it ends.
    var mustBeGone: [Watched] = []
    /// Violations noticed while applying the step (a wrong return value, a missing first render).
    var stepViolations: [Violation] = []
    var hookResults: [String] = []
    var pendings: [PendingAttachment] = []
    private var lastID = 0

    init(avoidingKnownIssues: Bool = FuzzConfiguration.avoidsKnownIssues) {
        avoidsKnownIssues = avoidingKnownIssues
        var ids: [Int] = []
        for slot in 0..<Slots.models {
            lastID += 1
            ids.append(lastID)
            models.append(PlainTally(slot: slot))
        }
        modelIDs = ids
        lastID += 1
        rootID = lastID
        root = RootScope()
        // The test kit's view of the tree's effects, which settling needs.
        root?.provide(.testing(clock: TestClock()))
        reference = Reference(modelIDs: ids, rootID: rootID, avoidsKnownIssues: avoidingKnownIssues)
        for (slot, model) in models.enumerated() { watch("model \(slot) (m\(ids[slot]))", model) }
        watch("root n\(rootID)", root!)
    }

    func newID() -> Int {
        lastID += 1
        return lastID
    }

    func watch(_ name: String, _ object: AnyObject) {
        watched.append(Watched(name: name, object: object))
    }

    func violation(_ kind: String, _ message: String) {
        stepViolations.append(Violation(kind: kind, message: message))
    }

    func beginStep() {
        reference.beginStep()
        stepViolations = []
        hookResults = []
        pendings = []
        mustBeGone = []
    }

    func apply(_ operation: Operation) {
        switch operation {
        case .write, .update, .mutate, .throwingWrite, .nestedWrite, .recreateModel:
            applyTransaction(operation)
        case .makeView, .subscribe, .unsubscribe, .cancelToken, .cancelStaleToken, .dropView:
            applyViewOperation(operation)
        case .follow, .unfollow, .cancelFollowToken:
            applyComposition(operation)
        case .makeNode, .attach, .host, .detach, .evict, .attachRoot, .arm, .storeWhileActive, .forgetNode,
            .replaceRoot, .request:
            applyScopeOperation(operation)
        }
    }

    /// Lets effects started by this step finish and write back, so that the step ends quiescent.
    func settleEffects() async {
        guard effects.lower() else { return }
        for record in records.values {
            guard let model = record.model, model.activations > 0 else { continue }
            // Settling waits for the main queue too, which another suite's steps may hold for a while.
            await SobreiroTesting.settleEffects(of: model, timeout: patientWait)
        }
    }
}

/// A broken invariant: `kind` names it, so that shrinking keeps looking for the same failure.
struct Violation: Equatable, CustomStringConvertible {
    let kind: String
    let message: String

    var description: String { "[\(kind)] \(message)" }
}
