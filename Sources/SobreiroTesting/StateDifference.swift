/// Describes, field by field, where `actual` differs from `expected`, or returns `nil` when they reflect identically.
///
/// The comparison walks both values with `Mirror`, so it needs no conformance beyond what every Swift value has.
/// The first line names the path to the first difference, expected value on the left and actual on the right;
/// further differing paths follow, one per line, up to ten, then a count of the rest.
///
/// ```swift
/// describeDifference(between: expected, and: actual)
/// // state.items[2].title: "oak" → "cork"
/// // state.items.count: 3 → 4
/// // state.items[3]: <missing> → Shop.Item(title: "pine")
/// ```
///
/// - Struct and class fields append `.field` (a class's inherited fields come first); tuple elements append `.0`
///   or their label.
/// - An enum whose case differs prints both cases, `state.phase: .loading → .loaded(["a"])`; one whose case is the
///   same descends into the payload, `state.phase.loaded.0` or `state.phase.failed.code`.
/// - Optionals print `nil` or the wrapped value, never `Optional(…)`, and descend when both hold a value.
/// - Collections compare element by element, `[2]`, and add `state.items.count: 2 → 3` when the counts differ.
/// - Dictionaries match entries by key, `["oak"]`, and print a key present on one side only as `<missing>`.
/// - Sets compare their elements' descriptions, sorted.
/// - Anything else is a leaf, compared by `String(reflecting:)`.
///
/// Below 30 levels of nesting the comparison stops descending and compares descriptions, so a deep or cyclic
/// graph of objects cannot exhaust the stack.
///
/// - Parameters:
///   - expected: The value the test expected, printed on the left of each arrow.
///   - actual: The value the test observed, printed on the right of each arrow.
///   - root: The name that starts every path.
/// - Returns: One line per differing path, first difference first, or `nil` when there is no difference.
/// - Complexity: O(*n* log *n*) in the number of reflected values, for sorting dictionary keys and set elements.
package func describeDifference<Value>(between expected: Value, and actual: Value, root: String = "state") -> String? {
    var differences = Differences()
    differences.compare(expected, actual, at: root, depth: 0)
    return differences.report
}

/// The differing paths found so far: the first few as lines, the rest only counted.
private struct Differences {
    static let maximumDepth = 30
    static let maximumListed = 10
    static let missing = "<missing>"

    private var listed: [String] = []
    private var total = 0

    var report: String? {
        guard total > 0 else { return nil }
        let unlisted = total - listed.count
        return (listed + (unlisted > 0 ? ["… and \(unlisted) more"] : [])).joined(separator: "\n")
    }

    mutating func record(_ path: String, _ expected: String, _ actual: String) {
        total += 1
        if listed.count < Self.maximumListed {
            listed.append("\(path): \(expected) → \(actual)")
        }
    }

    mutating func compare(_ expected: Any, _ actual: Any, at path: String, depth: Int) {
        let expectedMirror = Mirror(reflecting: expected)
        let actualMirror = Mirror(reflecting: actual)
        guard expectedMirror.subjectType == actualMirror.subjectType else {
            compareValuesOfDifferentTypes(expected, actual, at: path)
            return
        }
        guard depth < Self.maximumDepth else {
            compareDescriptions(expected, actual, at: path)
            return
        }
        switch expectedMirror.displayStyle {
        case .optional:
            switch (expectedMirror.children.first?.value, actualMirror.children.first?.value) {
            case (nil, nil):
                break
            case (let expectedWrapped?, let actualWrapped?):
                compare(expectedWrapped, actualWrapped, at: path, depth: depth + 1)
            default:
                record(path, describe(expected), describe(actual))
            }
        case .enum:
            compareEnums(expected, expectedMirror, actual, actualMirror, at: path, depth: depth)
        case .collection:
            compareCollections(expectedMirror, actualMirror, at: path, depth: depth)
        case .dictionary:
            compareDictionaries(expected, expectedMirror, actual, actualMirror, at: path, depth: depth)
        case .set:
            compareDescriptions(expected, actual, at: path)
        default:
            compareFields(expected, expectedMirror, actual, actualMirror, at: path, depth: depth)
        }
    }

    private mutating func compareValuesOfDifferentTypes(_ expected: Any, _ actual: Any, at path: String) {
        var expectedDescription = describe(expected)
        var actualDescription = describe(actual)
        // Int 1 and Int32 1 print alike; name the types so the line does not read as no difference at all.
        if expectedDescription == actualDescription {
            expectedDescription += " as \(String(reflecting: type(of: expected)))"
            actualDescription += " as \(String(reflecting: type(of: actual)))"
        }
        record(path, expectedDescription, actualDescription)
    }

    private mutating func compareDescriptions(_ expected: Any, _ actual: Any, at path: String) {
        let expectedDescription = describe(expected)
        let actualDescription = describe(actual)
        if expectedDescription != actualDescription {
            record(path, expectedDescription, actualDescription)
        }
    }

    private mutating func compareEnums(
        _ expected: Any, _ expectedMirror: Mirror, _ actual: Any, _ actualMirror: Mirror, at path: String, depth: Int
    ) {
        switch (expectedMirror.children.first, actualMirror.children.first) {
        case (nil, nil):
            compareDescriptions(expected, actual, at: path)
        case (let expectedCase?, let actualCase?) where expectedCase.label == actualCase.label:
            let casePath = "\(path).\(expectedCase.label ?? "payload")"
            // Several or labelled associated values reflect as a tuple that names its own elements; a single
            // unlabelled one reflects bare, so give it the `.0` a one-element tuple would have.
            let isTuple = Mirror(reflecting: expectedCase.value).displayStyle == .tuple
            compare(expectedCase.value, actualCase.value, at: isTuple ? casePath : "\(casePath).0", depth: depth + 1)
        default:
            record(path, describe(expected), describe(actual))
        }
    }

    private mutating func compareCollections(
        _ expectedMirror: Mirror, _ actualMirror: Mirror, at path: String, depth: Int
    ) {
        let expectedElements = expectedMirror.children.map(\.value)
        let actualElements = actualMirror.children.map(\.value)
        for (index, (expectedElement, actualElement)) in zip(expectedElements, actualElements).enumerated() {
            compare(expectedElement, actualElement, at: "\(path)[\(index)]", depth: depth + 1)
        }
        guard expectedElements.count != actualElements.count else { return }
        record("\(path).count", "\(expectedElements.count)", "\(actualElements.count)")
        let commonCount = min(expectedElements.count, actualElements.count)
        for index in commonCount..<max(expectedElements.count, actualElements.count) {
            record(
                "\(path)[\(index)]",
                expectedElements.indices.contains(index) ? describe(expectedElements[index]) : Self.missing,
                actualElements.indices.contains(index) ? describe(actualElements[index]) : Self.missing
            )
        }
    }

    private mutating func compareDictionaries(
        _ expected: Any, _ expectedMirror: Mirror, _ actual: Any, _ actualMirror: Mirror, at path: String, depth: Int
    ) {
        guard let expectedEntries = entries(of: expectedMirror), let actualEntries = entries(of: actualMirror) else {
            compareDescriptions(expected, actual, at: path)
            return
        }
        for key in Set(expectedEntries.keys).union(actualEntries.keys).sorted() {
            let keyPath = "\(path)[\(key)]"
            switch (expectedEntries[key], actualEntries[key]) {
            case (let expectedValue?, let actualValue?):
                compare(expectedValue, actualValue, at: keyPath, depth: depth + 1)
            case (let expectedValue?, nil):
                record(keyPath, describe(expectedValue), Self.missing)
            case (nil, let actualValue?):
                record(keyPath, Self.missing, describe(actualValue))
            case (nil, nil):
                break
            }
        }
    }

    private mutating func compareFields(
        _ expected: Any, _ expectedMirror: Mirror, _ actual: Any, _ actualMirror: Mirror, at path: String, depth: Int
    ) {
        if expectedMirror.displayStyle == .class, (expected as AnyObject) === (actual as AnyObject) {
            return
        }
        let expectedFields = fields(of: expectedMirror)
        let actualFields = fields(of: actualMirror)
        // A custom mirror may reflect different fields for different values; such values cannot be paired up.
        guard !expectedFields.isEmpty, expectedFields.map(\.label) == actualFields.map(\.label) else {
            compareDescriptions(expected, actual, at: path)
            return
        }
        for (index, (expectedField, actualField)) in zip(expectedFields, actualFields).enumerated() {
            let segment =
                switch expectedField.label {
                case let label? where label.hasPrefix("."): label
                case let label?: ".\(label)"
                case nil: ".\(index)"
                }
            compare(expectedField.value, actualField.value, at: path + segment, depth: depth + 1)
        }
    }
}

/// A class's fields, its superclasses' first.
private func fields(of mirror: Mirror) -> [Mirror.Child] {
    (mirror.superclassMirror.map(fields(of:)) ?? []) + mirror.children
}

/// A dictionary's values keyed by the description of their keys, or `nil` when two keys print alike.
private func entries(of mirror: Mirror) -> [String: Any]? {
    var entries: [String: Any] = [:]
    for entry in mirror.children {
        let keyAndValue = Mirror(reflecting: entry.value).children.map(\.value)
        guard keyAndValue.count == 2, entries.updateValue(keyAndValue[1], forKey: describe(keyAndValue[0])) == nil
        else { return nil }
    }
    return entries
}

/// How a value prints in a difference: `String(reflecting:)`, except that optionals print `nil` or the wrapped value,
/// enums without a description of their own print `.case(payload)`, and sets print their elements sorted.
private func describe(_ value: Any) -> String {
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional:
        return mirror.children.first.map { describe($0.value) } ?? "nil"
    case .enum
    where !(value is any CustomStringConvertible) && !(value is any CustomDebugStringConvertible)
        && !(value is any TextOutputStreamable):
        return ".\(String(describing: value))"
    case .set:
        return "Set([\(mirror.children.map { describe($0.value) }.sorted().joined(separator: ", "))])"
    default:
        return String(reflecting: value)
    }
}
