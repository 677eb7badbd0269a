/// The kinds of hazard a randomized run can draw its operations from. Each family works on objects of its own,
/// so that its operations reach one mechanism of the library in many orders: where entries are released, the
/// hop to the main actor, a delivery under way on another thread, an effect's write-back, state sequences, the
/// test clock, and a tree released while active.
enum HazardFamily: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Handlers and views whose `deinit` calls back into the model they were subscribed to.
    case callbacks
    /// Event channels and main-actor views whose renders write back, across the hop to the main actor.
    case mainActor
    /// Subscribing while another thread delivers to a view that renders slowly.
    case delivery
    /// An effect's results racing writes from other threads while a subscriber renders slowly.
    case effects
    /// State sequences with many consumers, copies of one iterator, and cancellations.
    case sequences
    /// `TestClock` sleeps racing cancellations.
    case clock
    /// Tasks that write to one model across `await`, in every form of a write, beside an effect writing back.
    case asyncWriters

    var description: String { rawValue }
}

/// What a handler's captured object does in its `deinit`, to the model it was subscribed to.
enum Callback: String, CaseIterable, Equatable, Sendable {
    case cancelToken, subscribe, write, nothing
}

/// One step of a hazard run. Slots name objects, as in `Operation`: a step on an empty slot does nothing.
enum Hazard: Equatable, Sendable {
    // callbacks
    case follow(follower: Int, publisher: Int, deinitDoes: Callback)
    case unfollow(follower: Int, publisher: Int)
    case recreateFollower(Int)
    case write(publisher: Int, value: Int)
    case subscribeSpare(publisher: Int, deinitDoes: Callback)
    case cancelSpare(publisher: Int)
    case dropSpare(publisher: Int)

    // mainActor
    case subscribeHandler(slot: Int, onMainActor: Bool)
    case cancelHandler(slot: Int)
    case releaseHandler(slot: Int)
    case send(value: Int, fromMain: Bool)
    case subscribeMainView(slot: Int, model: Int)
    case unsubscribeMainView(slot: Int)
    case writeMain(model: Int, value: Int, fromMain: Bool)
    case drainMainQueue

    // delivery and effects
    case armSlowView
    case releaseSlowView
    case writeElsewhere(value: Int)
    case subscribeView(slot: Int)
    case unsubscribeView(slot: Int)
    case request(value: Int)
    case openRuns
    case closeRuns

    // sequences
    case makeIterator(slot: Int, ofActivation: Bool)
    case copyIterator(from: Int, to: Int)
    case consume(slot: Int)
    case cancelConsumers
    case writeSequence
    case toggleActivation
    case churn(iterators: Int, ofActivation: Bool)

    // clock
    case sleepAndCancel(sleepers: Int, spin: Int)

    // asyncWriters
    case writeAcrossAwait(tasks: Int, rounds: Int, dwell: Int)
}

extension Hazard {
    /// A random step of `family`; like `Operation.random`, it depends on the generator alone.
    static func random(_ family: HazardFamily, using g: inout SplitMix64) -> Hazard {
        let a = g.below(3)
        let b = g.below(3)
        let value = g.below(7)
        let flag = g.chance(50)
        switch family {
        case .callbacks:
            let callback = Callback.allCases[g.below(Callback.allCases.count)]
            switch g.weightedIndex([6, 4, 3, 6, 3, 2, 2]) {
            case 0: return .follow(follower: a % 2, publisher: b % 2, deinitDoes: callback)
            case 1: return .unfollow(follower: a % 2, publisher: b % 2)
            case 2: return .recreateFollower(a % 2)
            case 3: return .write(publisher: b % 2, value: value)
            case 4: return .subscribeSpare(publisher: b % 2, deinitDoes: callback)
            case 5: return .cancelSpare(publisher: b % 2)
            default: return .dropSpare(publisher: b % 2)
            }
        case .mainActor:
            switch g.weightedIndex([3, 2, 1, 5, 3, 1, 6, 4]) {
            case 0: return .subscribeHandler(slot: a, onMainActor: g.chance(75))
            case 1: return .cancelHandler(slot: a)
            case 2: return .releaseHandler(slot: a)
            case 3: return .send(value: value, fromMain: g.chance(25))
            case 4: return .subscribeMainView(slot: a, model: b % 2)
            case 5: return .unsubscribeMainView(slot: a)
            case 6: return .writeMain(model: b % 2, value: value, fromMain: g.chance(25))
            default: return .drainMainQueue
            }
        case .delivery:
            switch g.weightedIndex([3, 3, 6, 5, 2]) {
            case 0: return .armSlowView
            case 1: return .releaseSlowView
            case 2: return .writeElsewhere(value: value)
            case 3: return .subscribeView(slot: a)
            default: return .unsubscribeView(slot: a)
            }
        case .effects:
            switch g.weightedIndex([3, 3, 4, 6, 3, 2]) {
            case 0: return .armSlowView
            case 1: return .releaseSlowView
            case 2: return .writeElsewhere(value: value)
            case 3: return .request(value: value)
            case 4: return .openRuns
            default: return .closeRuns
            }
        case .sequences:
            switch g.weightedIndex([4, 3, 6, 2, 5, 2, 1]) {
            case 0: return .makeIterator(slot: a, ofActivation: flag)
            case 1: return .copyIterator(from: a, to: b)
            case 2: return .consume(slot: a)
            case 3: return .cancelConsumers
            case 4: return .writeSequence
            case 5: return .toggleActivation
            default: return .churn(iterators: 50 + value * 50, ofActivation: flag)
            }
        case .clock:
            return .sleepAndCancel(sleepers: 20 + value * 5, spin: g.below(400))
        case .asyncWriters:
            return .writeAcrossAwait(tasks: 2 + a + b, rounds: 25 + value * 25, dwell: g.below(300))
        }
    }

    /// The hazards of `seed`, for `family`.
    static func sequence(_ family: HazardFamily, seed: UInt64, count: Int) -> [Hazard] {
        var generator = SplitMix64(seed: seed &* 0x9E37_79B9 &+ UInt64(family.hashSalt))
        return (0..<count).map { _ in random(family, using: &generator) }
    }
}

extension HazardFamily {
    /// Keeps the sequences of the families apart for one seed.
    var hashSalt: Int {
        HazardFamily.allCases.firstIndex(of: self)! + 1
    }
}

extension Hazard: CustomStringConvertible {
    var description: String {
        switch self {
        case .follow(let f, let p, let c): ".follow(follower: \(f), publisher: \(p), deinitDoes: .\(c.rawValue))"
        case .unfollow(let f, let p): ".unfollow(follower: \(f), publisher: \(p))"
        case .recreateFollower(let f): ".recreateFollower(\(f))"
        case .write(let p, let v): ".write(publisher: \(p), value: \(v))"
        case .subscribeSpare(let p, let c): ".subscribeSpare(publisher: \(p), deinitDoes: .\(c.rawValue))"
        case .cancelSpare(let p): ".cancelSpare(publisher: \(p))"
        case .dropSpare(let p): ".dropSpare(publisher: \(p))"
        case .subscribeHandler(let s, let m): ".subscribeHandler(slot: \(s), onMainActor: \(m))"
        case .cancelHandler(let s): ".cancelHandler(slot: \(s))"
        case .releaseHandler(let s): ".releaseHandler(slot: \(s))"
        case .send(let v, let m): ".send(value: \(v), fromMain: \(m))"
        case .subscribeMainView(let s, let m): ".subscribeMainView(slot: \(s), model: \(m))"
        case .unsubscribeMainView(let s): ".unsubscribeMainView(slot: \(s))"
        case .writeMain(let m, let v, let f): ".writeMain(model: \(m), value: \(v), fromMain: \(f))"
        case .drainMainQueue: ".drainMainQueue"
        case .armSlowView: ".armSlowView"
        case .releaseSlowView: ".releaseSlowView"
        case .writeElsewhere(let v): ".writeElsewhere(value: \(v))"
        case .subscribeView(let s): ".subscribeView(slot: \(s))"
        case .unsubscribeView(let s): ".unsubscribeView(slot: \(s))"
        case .request(let v): ".request(value: \(v))"
        case .openRuns: ".openRuns"
        case .closeRuns: ".closeRuns"
        case .makeIterator(let s, let a): ".makeIterator(slot: \(s), ofActivation: \(a))"
        case .copyIterator(let f, let t): ".copyIterator(from: \(f), to: \(t))"
        case .consume(let s): ".consume(slot: \(s))"
        case .cancelConsumers: ".cancelConsumers"
        case .writeSequence: ".writeSequence"
        case .toggleActivation: ".toggleActivation"
        case .churn(let n, let a): ".churn(iterators: \(n), ofActivation: \(a))"
        case .sleepAndCancel(let n, let s): ".sleepAndCancel(sleepers: \(n), spin: \(s))"
        case .writeAcrossAwait(let t, let r, let d): ".writeAcrossAwait(tasks: \(t), rounds: \(r), dwell: \(d))"
        }
    }
}
