public import Sobreiro

/// An alert or a confirmation dialog, as state: what it says, and the buttons it offers, each naming the action it
/// stands for.
///
/// A screen keeps the alert it shows in its state, so that showing it is a write, a test asserts it like any
/// state, and no handler can forget to clear it: ``Sobreiro/ViewModel/choose(_:in:)`` clears it in the same
/// transaction that reads the chosen action.
///
/// ```swift
/// struct DetailState: ViewState {
///     enum AlertAction: Equatable, Sendable { case confirmDeletion }
///     var alert: AlertState<AlertAction>?
/// }
///
/// final class DetailViewModel: ViewModel<DetailState>, @unchecked Sendable {
///     func deleteTapped() {
///         write {
///             $0.alert = AlertState(
///                 "Delete?", message: "Are you sure you want to delete this meeting?", style: .confirmationDialog,
///                 buttons: [.destructive("Yes", action: .confirmDeletion), .cancel("Nevermind")])
///         }
///     }
///
///     /// A button of the alert was chosen, or the alert was dismissed (`nil`).
///     func alertButtonTapped(_ button: AlertButton<DetailState.AlertAction>?) {
///         switch choose(button, in: \.alert) {
///         case .confirmDeletion?: delete()
///         case nil: break
///         }
///     }
/// }
/// ```
///
/// It names no renderer: a SwiftUI view maps it to `.alert` or `.confirmationDialog`, a UIKit view to a
/// `UIAlertController`, a terminal to a prompt (see the article *SwiftUI, UIKit and Combine* of
/// `SobreiroObservation`). A destination enum that holds an alert in one of its cases reaches it through a computed
/// property of the state with a setter, which is a writable key path too:
///
/// ```swift
/// var alert: AlertState<AlertAction>? {
///     get { if case .alert(let alert) = destination { alert } else { nil } }
///     set { destination = newValue.map(Destination.alert) }
/// }
/// ```
public struct AlertState<Action: Equatable & Sendable>: Equatable, Sendable {
    /// How the alert shows.
    public enum Style: Equatable, Sendable {
        /// A modal alert.
        case alert
        /// A choice between actions, in the style of an action sheet.
        case confirmationDialog
    }

    /// How it shows.
    public var style: Style
    /// Its title.
    public var title: String
    /// The text under the title, if any.
    public var message: String?
    /// The buttons it offers, in order.
    public var buttons: [AlertButton<Action>]

    /// Creates an alert.
    ///
    /// - Parameters:
    ///   - title: Its title.
    ///   - message: The text under the title, if any.
    ///   - style: How it shows; an alert by default.
    ///   - buttons: The buttons it offers, in order; one "OK" that does nothing by default.
    public init(
        _ title: String,
        message: String? = nil,
        style: Style = .alert,
        buttons: [AlertButton<Action>] = [.cancel("OK")]
    ) {
        self.title = title
        self.message = message
        self.style = style
        self.buttons = buttons
    }
}

/// A button of an ``AlertState``: its title, its role, and the action it stands for.
public struct AlertButton<Action: Equatable & Sendable>: Equatable, Sendable, Identifiable {
    /// What a button does, for a renderer that shows roles apart.
    public enum Role: Equatable, Sendable {
        /// It dismisses the alert.
        case cancel
        /// It deletes or discards something.
        case destructive
    }

    /// Its title, which tells it apart from the alert's other buttons.
    public var title: String
    /// Its role, if any.
    public var role: Role?
    /// The action it stands for; `nil` for one that only dismisses the alert.
    public var action: Action?

    /// The button's title: the buttons of one alert have different titles.
    public var id: String { title }

    /// Creates a button.
    ///
    /// - Parameters:
    ///   - title: Its title.
    ///   - role: Its role, if any.
    ///   - action: The action it stands for; `nil` for one that only dismisses the alert.
    public init(_ title: String, role: Role? = nil, action: Action? = nil) {
        self.title = title
        self.role = role
        self.action = action
    }

    /// A button that dismisses the alert, doing `action` if one is given.
    public static func cancel(_ title: String, action: Action? = nil) -> Self {
        Self(title, role: .cancel, action: action)
    }

    /// A button that deletes or discards something.
    public static func destructive(_ title: String, action: Action) -> Self {
        Self(title, role: .destructive, action: action)
    }
}

extension ViewModel {
    /// Clears the alert at `alert` and returns the action of `button`, in one transaction: a button chosen, or
    /// the alert dismissed (`nil`).
    ///
    /// Returns `nil` for a button with no action, for a dismissal, and for a button of an alert that is no longer
    /// the one shown (a second tap, or an alert another one replaced): the state decides, so a stale tap does
    /// nothing. See ``AlertState`` for a whole screen.
    ///
    /// - Parameters:
    ///   - button: The button chosen, or `nil` when the alert was dismissed without one.
    ///   - alert: Where the state keeps the alert.
    /// - Returns: The action to perform, if any.
    @discardableResult
    public final func choose<Action>(
        _ button: AlertButton<Action>?,
        in alert: WritableKeyPath<State, AlertState<Action>?>
    ) -> Action? {
        var chosen: Action?
        write {
            guard let shown = state[keyPath: alert] else { return }
            if let button {
                guard shown.buttons.contains(button) else { return }
                chosen = button.action
            }
            state[keyPath: alert] = nil
        }
        return chosen
    }
}
