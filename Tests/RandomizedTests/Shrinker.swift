/// Delta debugging: the shortest, simplest subsequence of a failing sequence that still fails the same way, as
/// far as removing chunks (halves, quarters, … single elements) and simplifying single elements can find it.
///
/// `failingIndex` runs a candidate and returns the index of the element at which it failed, or `nil` if it
/// passed or failed some other way. Everything after the failing element is dropped at once. `simpler` offers
/// simpler stand-ins for an element, tried in turn once no element can be removed.
@MainActor
func shrink<Element>(
    _ elements: [Element],
    failingAt index: Int,
    simpler: (Element) -> [Element] = { _ in [] },
    failingIndex: @MainActor ([Element]) async -> Int?
) async -> [Element] {
    var current = Array(elements.prefix(index + 1))
    while true {
        current = await removeChunks(from: current, failingIndex: failingIndex)
        var simplified = false
        for position in current.indices {
            for candidate in simpler(current[position]) {
                var attempt = current
                attempt[position] = candidate
                if let failure = await failingIndex(attempt), failure >= position {
                    current = Array(attempt.prefix(failure + 1))
                    simplified = true
                    break
                }
            }
            if simplified { break }
        }
        if !simplified { return current }
    }
}

@MainActor
private func removeChunks<Element>(
    from elements: [Element],
    failingIndex: @MainActor ([Element]) async -> Int?
) async -> [Element] {
    var current = elements
    var chunk = max(1, current.count / 2)
    while true {
        var start = 0
        var removedAny = false
        while start < current.count {
            var candidate = current
            candidate.removeSubrange(start..<min(start + chunk, current.count))
            if let failure = await failingIndex(candidate) {
                current = Array(candidate.prefix(failure + 1))
                removedAny = true
            } else {
                start += chunk
            }
        }
        if !removedAny {
            if chunk == 1 { return current }
            chunk = max(1, chunk / 2)
        }
    }
}

extension Operation {
    /// Simpler operations that may fail the same way: the shrinker tries them in place of this one.
    var simplifications: [Operation] {
        switch self {
        case .update(let model, let value), .nestedWrite(let model, let value):
            [.write(model: model, value: value)]
        case .mutate(let model, _):
            [.write(model: model, value: 1)]
        case .makeView(let view, let source, let reaction):
            (reaction == .none ? [] : [.makeView(view: view, of: source, reaction: .none)])
                + (source.simplified.map { [.makeView(view: view, of: $0, reaction: reaction)] } ?? [])
        case .follow(let follower, let publisher, let form) where form != .closure:
            [.follow(follower: follower, publisher: publisher, form: .closure)]
        case .makeNode(let node, .bound):
            [.makeNode(node: node, model: .none)]
        case .host(let node, let host):
            [.attach(node: node, to: host)]
        default:
            []
        }
    }
}

extension ViewSource {
    fileprivate var simplified: ViewSource? {
        if case .projection(let model) = self { return .model(model) }
        return nil
    }
}
