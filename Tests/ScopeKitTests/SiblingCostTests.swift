import ScopeKit
import TestSupport
import Testing

/// Children leave their host without a search among their siblings, and the order of the rest survives the
/// holes they leave.
@Suite("Sibling cost")
@MainActor
struct SiblingCostTests {
    /// The slots the child lists read per attach + detach of one empty behavior beside `siblings` others.
    private func slotReadsPerCycle(siblings: Int) async -> Double {
        let root = RootScope()
        for sibling in 0..<siblings {
            root.host(AnonymousBehavior { _ in })
            await yieldMainActor(after: sibling)
        }
        let behavior = AnonymousBehavior { _ in }
        let before = ChildList.slotReads
        for _ in 0..<1_000 {
            behavior.attach(to: root)
            behavior.detach()
        }
        return Double(ChildList.slotReads - before) / 1_000
    }

    // Counted, not timed, so that a loaded machine cannot fail them: `ChildList.slotReads` counts every slot a
    // child list reads, searches included, in debug builds; release builds skip these tests.

    @Test(
        "attach + detach reads as many slots beside 100 000 siblings as beside 10, and a handful at most",
        .enabled(if: ChildList.countsSlotReads))
    func costIgnoresSiblings() async {
        let alone = await slotReadsPerCycle(siblings: 0)
        let few = await slotReadsPerCycle(siblings: 10)
        let crowded = await slotReadsPerCycle(siblings: 100_000)
        #expect(alone > 0, "the child lists counted no reads")
        #expect(few <= 4, "alone: \(alone) slots per cycle, beside 10 siblings: \(few)")
        #expect(crowded == few, "beside 10 siblings: \(few) slots per cycle, beside 100 000: \(crowded)")
    }

    @Test(
        "children leaving from everywhere among 10 000 read a few slots each, squeezing the holes out included",
        .enabled(if: ChildList.countsSlotReads))
    func leavingFromTheMiddleIsAmortisedConstant() {
        let root = RootScope()
        let behaviors = (0..<10_000).map { _ in AnonymousBehavior { _ in } }
        root.host(behaviors)
        let before = ChildList.slotReads
        // Every other child first, then the rest from the front: holes pile up and are squeezed out on the way.
        for index in stride(from: 1, to: behaviors.count, by: 2) { behaviors[index].detach() }
        for index in stride(from: 0, to: behaviors.count, by: 2) { behaviors[index].detach() }
        let perChild = Double(ChildList.slotReads - before) / Double(behaviors.count)
        #expect(root.children.isEmpty)
        #expect(perChild <= 4, "\(perChild) slots read per child that left")
    }

    @Test(
        "a child hosted before a sibling goes right before it, into the hole a child left there if any",
        .enabled(if: ChildList.countsSlotReads))
    func hostBeforeSibling() {
        let root = RootScope()
        let behaviors = (0..<1_000).map { _ in AnonymousBehavior { _ in } }
        root.host(behaviors)
        let replacement = AnonymousBehavior { _ in }
        behaviors[500].detach()
        let before = ChildList.slotReads
        root.host(replacement, before: behaviors[501])
        #expect(ChildList.slotReads - before <= 4, "a replaced row reads \(ChildList.slotReads - before) slots")
        var expected = behaviors.map(ObjectIdentifier.init)
        expected[500] = ObjectIdentifier(replacement)
        #expect(root.children.map(ObjectIdentifier.init) == expected)
        // With no hole before it, the children after it move up one place, in order.
        let inserted = AnonymousBehavior { _ in }
        root.host(inserted, before: behaviors[10])
        expected.insert(ObjectIdentifier(inserted), at: 10)
        #expect(root.children.map(ObjectIdentifier.init) == expected)
        // A sibling that is not a child: the behavior goes last.
        let last = AnonymousBehavior { _ in }
        root.host(last, before: AnonymousBehavior { _ in })
        #expect(root.children.last === last)
        for behavior in root.children.reversed() { behavior.detach() }
        #expect(root.children.isEmpty)
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
