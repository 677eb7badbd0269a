import ScopeKit
import Sobreiro
import SobreiroScopeKit

/// A plain, sequential description of what the contract says a run should end with: the state of every model,
/// which models follow which, and (in `Reference+Tree.swift`) the scope tree and the hooks it calls.
///
/// It knows nothing of locks, threads or delivery rounds. It predicts every field of every state except
/// `version` and `echoes` (see `Tally`), which the harness checks against what views rendered instead.
struct Reference {
    struct Pair: Hashable {
        var follower: Int
        var publisher: Int
    }

    /// What the model bound to a node should hold.
    struct ScopedPrediction {
        var tally: Tally
        var upstreamSlot: Int
        /// The ID of the upstream model it was created with; `nil` once that model is gone.
        var upstreamID: Int?
        var isLoaded = false
        /// Activated during the current step: an effect may have written back before a deactivation in the same
        /// step cancelled it, so a model that ends the step inactive may hold either response.
        var wasActivatedThisStep = false
    }

    struct Node {
        /// The ID of the host.
        var parent: Int?
        var children: [Int] = []
        var state: ActivityState = .detached
        var armed: [Hook: HookAction] = [:]
        /// Whether the harness holds the node; otherwise only its host keeps it alive.
        var isHeld = true
        var isRoot = false
        /// Cancellables stored through `whileActiveReceiver` during the current activation.
        var extras = 0
        var model: ScopedPrediction?
    }

    enum Change {
        case attach(Int, to: Int, pending: Int?)
        case detach(Int)
        case evict(Int, from: Int)
        case orphan(Int)
    }

    var models: [Tally] = (0..<Slots.models).map { Tally(slot: $0) }
    var modelIDs: [Int]
    /// Each follow of a whole model, with the IDs of the tokens that name it: following the same model again keeps
    /// the live subscription and returns its token, so several IDs may name one subscription.
    var wholeFollows: [Pair: Set<Int>] = [:]
    var projectionFollows: [Int: Pair] = [:]

    var nodes: [Int: Node] = [:]
    var nodeSlots: [Int?] = Array(repeating: nil, count: Slots.nodes)
    var rootID: Int
    let avoidsKnownIssues: Bool

    // What the current step did, to compare with what the library did.
    var events: [String] = []
    var hookResults: [String] = []
    var pendingOutcomes: [PendingAttachment.Outcome] = []
    /// How many subtrees died at once in this step: their hooks may interleave in an unspecified order.
    var deathsThisStep = 0
    var queue: [Change] = []
    var isApplying = false

    init(modelIDs: [Int], rootID: Int, avoidsKnownIssues: Bool) {
        self.modelIDs = modelIDs
        self.rootID = rootID
        self.avoidsKnownIssues = avoidsKnownIssues
        nodes[rootID] = Node(state: .active, isRoot: true)
    }

    mutating func beginStep() {
        events = []
        hookResults = []
        pendingOutcomes = []
        deathsThisStep = 0
        for id in nodes.keys { nodes[id]?.model?.wasActivatedThisStep = false }
    }

    // MARK: Models

    mutating func nestedWrite(model slot: Int, value: Int) {
        // The same assignments as the real nested write; the one that throws is rolled back, so it is skipped.
        models[slot].setValue(-1)
        models[slot].setValue(value)
        models[slot].setValue(value + 1)
    }

    mutating func recreate(model slot: Int, id: Int) {
        let oldID = modelIDs[slot]
        models[slot] = Tally(slot: slot)
        modelIDs[slot] = id
        wholeFollows = wholeFollows.filter { $0.key.follower != slot && $0.key.publisher != slot }
        projectionFollows = projectionFollows.filter { $0.value.follower != slot && $0.value.publisher != slot }
        for nodeID in nodes.keys where nodes[nodeID]?.model?.upstreamID == oldID {
            nodes[nodeID]?.model?.upstreamID = nil
        }
    }

    mutating func follow(follower: Int, publisher: Int, form: FollowForm, token: Int) {
        let pair = Pair(follower: follower, publisher: publisher)
        if form == .projection {
            projectionFollows[token] = pair
        } else {
            wholeFollows[pair, default: []].insert(token)
        }
    }

    mutating func unfollow(follower: Int, publisher: Int) {
        let pair = Pair(follower: follower, publisher: publisher)
        wholeFollows[pair] = nil
        projectionFollows = projectionFollows.filter { $0.value != pair }
    }

    mutating func cancelFollow(token: Int) {
        projectionFollows[token] = nil
        if let pair = wholeFollows.first(where: { $0.value.contains(token) })?.key { wholeFollows[pair] = nil }
    }

    /// Writes what live subscriptions deliver: every derived field depends on a `value` only, so one pass
    /// reaches what the library settles on.
    mutating func settleDerivedFields() {
        for pair in wholeFollows.keys {
            models[pair.follower].set(\.mirrors, pair.publisher, to: models[pair.publisher].value)
        }
        for pair in projectionFollows.values {
            models[pair.follower].set(\.projections, pair.publisher, to: models[pair.publisher].value % 3)
        }
        for id in nodes.keys where nodes[id]?.state == .active && nodes[id]?.model != nil {
            resync(id)
            let request = nodes[id]!.model!.tally.request
            nodes[id]?.model?.tally.set(\.response, to: request * 10)
        }
    }

    /// An active bound model follows its upstream, if that model still exists.
    mutating func resync(_ id: Int) {
        guard let model = nodes[id]?.model, let upstream = model.upstreamID,
            modelIDs[model.upstreamSlot] == upstream
        else { return }
        nodes[id]?.model?.tally.set(\.mirrors, model.upstreamSlot, to: models[model.upstreamSlot].value)
    }

    /// The number of live subscriptions to the plain model in `slot`, views aside.
    func followerCount(ofModel slot: Int) -> Int {
        wholeFollows.keys.filter { $0.publisher == slot }.count
            + projectionFollows.values.filter { $0.publisher == slot }.count
            + nodes.values.filter { node in
                node.state == .active && node.model?.upstreamSlot == slot && node.model?.upstreamID == modelIDs[slot]
            }.count
    }
}
