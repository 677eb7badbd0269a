/// Formats a score for the screen: thousands grouped with commas, as the league's website shows them.
enum Points {
    /// `1240` as `1,240 pts`.
    static func text(_ points: Int) -> String {
        grouped(points) + " pts"
    }

    /// `1240` as `1,240`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return (number < 0 ? "-" : "") + groups.joined(separator: ",")
    }
}
