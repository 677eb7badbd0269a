/// A framed text panel: a title set in the top border, then lines of text padded to one width.
///
/// Every renderer in the playground turns its state into a `Panel`; the screen stacks the panels into a frame.
/// Only characters one column wide are used, so the frame lines up in any terminal.
struct Panel: Equatable, Sendable {
    /// The outer width of every panel, borders included.
    static let width = 62

    var title: String
    var lines: [String]

    /// The panel as text lines, each exactly `width` columns wide.
    func drawn(width: Int = Panel.width) -> [String] {
        let inner = width - 4
        let label = Self.fitted(title, to: width - 6)
        let top = "┌─ " + label + " " + String(repeating: "─", count: width - 5 - label.count) + "┐"
        let body = lines.map { "│ " + Self.padded(Self.fitted($0, to: inner), to: inner) + " │" }
        let bottom = "└" + String(repeating: "─", count: width - 2) + "┘"
        return [top] + body + [bottom]
    }

    /// Two columns on one line: `left` from the start, `right` flush with the end of `width`.
    static func columns(_ left: String, _ right: String, width: Int = Panel.width - 4) -> String {
        let gap = max(1, width - left.count - right.count)
        return left + String(repeating: " ", count: gap) + right
    }

    private static func fitted(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }

    private static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
