import Testing

/// The text of a recorded issue's comments.
func text(of issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}
