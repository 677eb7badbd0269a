import ScopeKit
import Testing

/// Children leave their host without a search among their siblings, and the order of the rest survives the
/// holes they leave.
@Suite("Sibling cost")
@MainActor
struct SiblingCostTests {
    /// The best of five batches of attach + detach of one empty behavior beside `siblings` others, per cycle.
    private func cycleCost(siblings: Int) -> Duration {
        let root = RootScope()
        for _ in 0..<siblings { root.host(AnonymousBehavior { _ in }) }
        let behavior = AnonymousBehavior { _ in }
        let clock = ContinuousClock()
        var best = Duration.seconds(1_000)
        for _ in 0..<5 {
            let elapsed = clock.measure {
                for _ in 0..<200 {
                    behavior.attach(to: root)
                    behavior.detach()
                }
            }
            best = min(best, elapsed / 200)
        }
        return best
    }

    @Test("attach + detach beside 100 000 siblings costs about what it costs alone")
    func costIgnoresSiblings() {
        let alone = cycleCost(siblings: 0)
        let crowded = cycleCost(siblings: 100_000)
        // A search among the siblings makes the crowded cycle hundreds of times slower; the margin is for noise.
        #expect(crowded < alone * 10, "alone \(alone), beside 100 000 siblings \(crowded)")
    }

    @Test("children that leave from the middle keep the order of the others, through many holes")
    func orderSurvivesHoles() {
        let root = RootScope()
        let behaviors = (0..<100).map { _ in AnonymousBehavior { _ in } }
        root.host(behaviors)
        for index in stride(from: 1, to: 100, by: 2) { behaviors[index].detach() }
        let kept = stride(from: 0, to: 100, by: 2).map { behaviors[$0] }
        #expect(root.children.map(ObjectIdentifier.init) == kept.map(ObjectIdentifier.init))
        // A child that returns goes last; removing the last ones leaves no holes behind them.
        behaviors[1].attach(to: root)
        #expect(root.children.last === behaviors[1])
        for behavior in kept.reversed() { behavior.detach() }
        #expect(root.children.map(ObjectIdentifier.init) == [ObjectIdentifier(behaviors[1])])
        behaviors[1].detach()
        #expect(root.children.isEmpty)
    }

    @Test("activation follows the order left after removals, and deactivation the reverse")
    func activationOrderAfterRemovals() {
        let journal = Journal()
        let scope = Scope()
        let nodes = (0..<40).map { Node("\($0)", journal: journal) }
        scope.host(nodes)
        for index in 0..<30 where index % 3 != 0 { nodes[index].detach() }
        let expected = (0..<40).filter { $0 >= 30 || $0 % 3 == 0 }.map(String.init)
        _ = journal.take()
        let root = RootScope()
        root.host(scope)
        #expect(journal.take().filter { $0.hasSuffix(".willActivate") } == expected.map { "\($0).willActivate" })
        scope.detach()
        #expect(
            journal.take().filter { $0.hasSuffix(".willDeactivate") }
                == expected.reversed().map { "\($0).willDeactivate" })
    }
}
