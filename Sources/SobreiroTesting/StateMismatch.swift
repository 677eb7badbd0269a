/// The message of a failed state assertion: what was expected, what arrived, and where they first differ.
struct StateMismatch<State> {
    let expected: [State]
    let actual: [State]

    var description: String {
        var lines: [String] = []
        if expected.count != actual.count {
            lines.append("expected \(expected.count) state(s), but \(actual.count) arrived")
        } else {
            lines.append("the states that arrived differ from the expected ones")
        }
        for index in 0..<max(expected.count, actual.count) {
            let label = expected.count == 1 && actual.count == 1 ? "state" : "state #\(index + 1)"
            switch (index < expected.count ? expected[index] : nil, index < actual.count ? actual[index] : nil) {
            case (let wanted?, let got?):
                guard let difference = describeDifference(between: wanted, and: got, root: "state") else { continue }
                lines.append("\(label) (expected → actual):")
                lines.append(contentsOf: difference.split(separator: "\n").map { "  \($0)" })
            case (let wanted?, nil):
                lines.append("\(label) missing: \(wanted)")
            case (nil, let got?):
                lines.append("\(label) unexpected: \(got)")
            case (nil, nil):
                break
            }
        }
        return lines.joined(separator: "\n")
    }
}
