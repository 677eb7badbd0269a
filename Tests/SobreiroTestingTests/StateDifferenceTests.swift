import SobreiroTesting
import Testing

@Suite("State differences")
struct StateDifferenceTests {
    // Nested, not private: a private type's reflected name carries an address that changes between runs.
    struct Item: Sendable {
        var title: String
    }

    enum Phase: Sendable {
        case loading
        case loaded([String])
        case failed(code: Int, message: String)
        case paged(Int, next: Int?)
    }

    struct Screen: Sendable {
        var phase: Phase
    }

    struct Shop: Sendable {
        var items: [Item] = []
        var owner: String?
        var stock: [String: Int] = [:]
        var tags: Set<String> = []
    }

    class Account {
        var name: String
        init(name: String) { self.name = name }
    }

    final class Savings: Account {
        var rate: Int
        init(name: String, rate: Int) {
            self.rate = rate
            super.init(name: name)
        }
    }

    final class Node {
        var value: Int
        var next: Node?
        init(value: Int) { self.value = value }
    }

    @Test(
        "equal values have no difference",
        arguments: [
            Shop(),
            Shop(items: [Item(title: "oak")], owner: "Ana", stock: ["cork": 3, "pine": 0], tags: ["a", "b"]),
        ])
    func equalValues(shop: Shop) {
        #expect(describeDifference(between: shop, and: shop) == nil)
    }

    @Test("the first line is the path to the first difference, expected on the left")
    func pathToFirstDifference() {
        let expected = Shop(items: [Item(title: "ash"), Item(title: "elm"), Item(title: "oak")])
        var actual = expected
        actual.items[2].title = "cork"

        let difference = describeDifference(between: expected, and: actual)

        #expect(difference == #"state.items[2].title: "oak" → "cork""#)
    }

    @Test("leaves compare by their reflected description, strings quoted")
    func leaves() {
        #expect(describeDifference(between: 1, and: 2) == "state: 1 → 2")
        #expect(describeDifference(between: "oak", and: "cork", root: "title") == #"title: "oak" → "cork""#)
        #expect(describeDifference(between: 1.5, and: 1.5) == nil)
    }

    @Test("values of different types that print alike name their types")
    func differentTypes() {
        let difference = describeDifference(between: 1 as Any, and: Int32(1) as Any)

        #expect(difference == "state: 1 as Swift.Int → 1 as Swift.Int32")
    }

    @Test("every differing field gets its own line, in declaration order")
    func structFields() {
        let expected = Shop(items: [Item(title: "oak")], owner: "Ana")
        let actual = Shop(items: [Item(title: "elm")], owner: "Rui")

        let difference = describeDifference(between: expected, and: actual)

        #expect(
            difference == """
                state.items[0].title: "oak" → "elm"
                state.owner: "Ana" → "Rui"
                """)
    }

    @Test("class fields include inherited ones, the superclass's first")
    func classFields() {
        let difference = describeDifference(
            between: Savings(name: "Ana", rate: 2), and: Savings(name: "Rui", rate: 3), root: "account")

        #expect(
            difference == """
                account.name: "Ana" → "Rui"
                account.rate: 2 → 3
                """)
        #expect(describeDifference(between: Savings(name: "Ana", rate: 2), and: Savings(name: "Ana", rate: 2)) == nil)
    }

    @Test("tuple elements are named by position or by label")
    func tuples() {
        #expect(describeDifference(between: (1, "a"), and: (1, "b")) == #"state.1: "a" → "b""#)
        #expect(describeDifference(between: (x: 1, y: 2), and: (x: 3, y: 2)) == "state.x: 1 → 3")
    }

    @Test(
        "enums print both cases when the case differs and descend into the payload when it does not",
        arguments: [
            (Phase.loading, Phase.loading, nil),
            (.loading, .loaded(["a"]), #"state.phase: .loading → .loaded(["a"])"#),
            (
                .loaded(["a"]), .failed(code: 1, message: "x"),
                #"state.phase: .loaded(["a"]) → .failed(code: 1, message: "x")"#
            ),
            (.loaded(["a"]), .loaded(["b"]), #"state.phase.loaded.0[0]: "a" → "b""#),
            (.failed(code: 1, message: "x"), .failed(code: 2, message: "x"), "state.phase.failed.code: 1 → 2"),
            (.paged(1, next: 2), .paged(1, next: nil), "state.phase.paged.next: 2 → nil"),
        ] as [(Phase, Phase, String?)])
    func enums(expected: Phase, actual: Phase, difference: String?) {
        #expect(describeDifference(between: Screen(phase: expected), and: Screen(phase: actual)) == difference)
    }

    @Test(
        "optionals print nil or the wrapped value, never Optional(…)",
        arguments: [
            (nil, nil, nil),
            (nil, "x", #"state.owner: nil → "x""#),
            ("x", nil, #"state.owner: "x" → nil"#),
            ("x", "y", #"state.owner: "x" → "y""#),
        ] as [(String?, String?, String?)])
    func optionals(expected: String?, actual: String?, difference: String?) {
        #expect(describeDifference(between: Shop(owner: expected), and: Shop(owner: actual)) == difference)
    }

    @Test("an optional holding a value on both sides is descended into")
    func optionalDescends() {
        let difference = describeDifference(between: Item(title: "oak") as Item?, and: Item(title: "elm"))

        #expect(difference == #"state.title: "oak" → "elm""#)
    }

    @Test(
        "collections compare element by element and report a count that differs",
        arguments: [
            (["a", "b"], ["a", "c"], #"state[1]: "b" → "c""#),
            (["a", "b"], ["a", "b", "c"], "state.count: 2 → 3\nstate[2]: <missing> → \"c\""),
            (["x", "b"], ["a"], "state[0]: \"x\" → \"a\"\nstate.count: 2 → 1\nstate[1]: \"b\" → <missing>"),
        ])
    func collections(expected: [String], actual: [String], difference: String) {
        #expect(describeDifference(between: expected, and: actual) == difference)
    }

    @Test("dictionaries match entries by key, in key order, and show a key on one side only as <missing>")
    func dictionaries() {
        let expected = Shop(stock: ["ash": 1, "elm": 2])
        let actual = Shop(stock: ["elm": 3, "oak": 4])

        let difference = describeDifference(between: expected, and: actual)

        #expect(
            difference == """
                state.stock["ash"]: 1 → <missing>
                state.stock["elm"]: 2 → 3
                state.stock["oak"]: <missing> → 4
                """)
    }

    @Test("sets compare their sorted elements")
    func sets() {
        let difference = describeDifference(between: Shop(tags: ["b", "a"]), and: Shop(tags: ["c", "a"]))

        #expect(difference == #"state.tags: Set(["a", "b"]) → Set(["a", "c"])"#)
        #expect(describeDifference(between: Shop(tags: ["b", "a"]), and: Shop(tags: ["a", "b"])) == nil)
    }

    @Test("lists ten differences, then counts the rest")
    func truncatesLongLists() {
        let difference = describeDifference(between: Array(0..<15), and: Array(100..<115))

        let lines = difference?.split(separator: "\n") ?? []
        #expect(lines.count == 11)
        #expect(lines.first == "state[0]: 0 → 100")
        #expect(lines.last == "… and 5 more")
    }

    @Test("a cyclic graph of objects stops descending instead of overflowing the stack")
    func cyclesAreCapped() {
        let expected = Node(value: 1)
        expected.next = expected
        let actual = Node(value: 2)
        actual.next = actual
        let equalToExpected = Node(value: 1)
        equalToExpected.next = equalToExpected
        defer {
            expected.next = nil
            actual.next = nil
            equalToExpected.next = nil
        }

        let difference = describeDifference(between: expected, and: actual, root: "node")

        // Each node costs two levels, its `next` field and the optional around it: 15 nodes fit in 30 levels.
        let lines = difference?.split(separator: "\n") ?? []
        #expect(lines.prefix(2) == ["node.value: 1 → 2", "node.next.value: 1 → 2"])
        #expect(lines.last == "… and 5 more")
        #expect(describeDifference(between: expected, and: equalToExpected) == nil)
    }
}
