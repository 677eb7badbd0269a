import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

private enum MeetingAlert: Equatable, Sendable {
    case confirmDeletion
    case keepEditing
}

private struct MeetingState: ViewState {
    enum Destination: Equatable, Sendable {
        case alert(AlertState<MeetingAlert>)
        case edit(String)

    }

    var title = "Standup"
    var alert: AlertState<MeetingAlert>?
    var destination: Destination?
    var deleted = false

    static let deletion = AlertState<MeetingAlert>(
        "Delete?", message: "This cannot be undone.", style: .confirmationDialog,
        buttons: [.destructive("Delete", action: .confirmDeletion), .cancel("Cancel")])
}

private final class MeetingModel: ViewModel<MeetingState>, @unchecked Sendable {
    init() {
        super.init(initialState: MeetingState())
    }

    func deleteTapped() { write { $0.alert = MeetingState.deletion } }

    func alertButtonTapped(_ button: AlertButton<MeetingAlert>?) {
        switch choose(button, in: \.alert) {
        case .confirmDeletion?: write { $0.deleted = true }
        case .keepEditing?, nil: break
        }
    }
}

@Suite("Alerts and confirmation dialogs as state")
struct AlertStateTests {
    @Test("W2: choosing a button clears the alert and returns its action, in one transaction")
    func chooseClearsAndReturns() {
        let model = MeetingModel()
        let states = StateRecorder(subscribedTo: model)
        model.deleteTapped()
        let delete = MeetingState.deletion.buttons[0]
        #expect(model.choose(delete, in: \.alert) == .confirmDeletion)
        states.expect(MeetingState(), MeetingState(alert: MeetingState.deletion), MeetingState())
    }

    @Test("W2: a second tap, or a button of an alert that another replaced, does nothing and writes nothing")
    func staleButtonsDoNothing() {
        let model = MeetingModel()
        model.deleteTapped()
        let delete = MeetingState.deletion.buttons[0]
        model.alertButtonTapped(delete)
        let states = StateRecorder(subscribedTo: model)
        states.expect(MeetingState(deleted: true))
        model.alertButtonTapped(delete)
        states.expect()
        #expect(model.state.deleted)

        let other = AlertState<MeetingAlert>("Leave?", buttons: [.cancel("Stay", action: .keepEditing)])
        model.write { $0.alert = other }
        #expect(model.choose(delete, in: \.alert) == nil)
        states.expect(MeetingState(alert: other, deleted: true))
    }

    @Test("W2: a dismissal clears the alert and returns no action; a button without one returns none")
    func dismissalAndCancel() {
        let model = MeetingModel()
        model.deleteTapped()
        #expect(model.choose(nil, in: \.alert) == nil)
        #expect(model.state.alert == nil)
        model.deleteTapped()
        #expect(model.choose(MeetingState.deletion.buttons[1], in: \.alert) == nil)
        #expect(model.state == MeetingState())
    }

    @Test("W2: an alert inside a destination enum is chosen through a computed key path, and clears the destination")
    func alertInADestination() {
        let model = MeetingModel()
        let leave = AlertState<MeetingAlert>("Leave?", buttons: [.cancel("Stay", action: .keepEditing)])
        model.write { $0.destination = .alert(leave) }
        #expect(model.choose(leave.buttons[0], in: \.alertDestination) == .keepEditing)
        #expect(model.state.destination == nil)
    }
}

extension MeetingState {
    /// The destination when it is an alert: clearing it clears the destination.
    fileprivate var alertDestination: AlertState<MeetingAlert>? {
        get {
            guard case .alert(let alert) = destination else { return nil }
            return alert
        }
        set { destination = newValue.map(Destination.alert) }
    }
}
