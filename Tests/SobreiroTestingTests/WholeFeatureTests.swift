import ScopeKit
import Sobreiro
import SobreiroScopeKit
import SobreiroTesting
import Testing

private struct Talk: ViewState, Identifiable {
    let id: Int
    var title: String
}

private struct TalksState: ViewState {
    var meetings: [Talk] = []
    var editing: Talk.ID?
    var path: [Talk.ID] = []
}

/// A list that shows an edit sheet for one meeting at a time, and a stack of meeting screens.
private final class TalksModel: ViewModel<TalksState>, ScopedViewModel, @unchecked Sendable {
    init(_ meetings: [Talk]) {
        super.init(initialState: TalksState(meetings: meetings))
    }

    func editTapped(_ id: Talk.ID) { write { $0.editing = id } }
    func open(_ id: Talk.ID) { write { $0.path.append(id) } }
    func editDismissed() { write { $0.editing = nil } }
    func close(_ id: Talk.ID) { write { $0.path.removeAll { $0 == id } } }
}

private struct TalkEditState: ViewState {
    var title: String
}

/// The sheet: it dismisses itself when done.
private final class TalkEditModel: ViewModel<TalkEditState>, ScopedViewModel, @unchecked Sendable {
    init(title: String) {
        super.init(initialState: TalkEditState(title: title))
    }

    @MainActor func doneTapped() { dependency(DismissKey.self)() }
}

private struct TalkScreenState: ViewState {
    let id: Talk.ID
    var ticks = 0
}

/// A screen on the stack, which ticks while it is shown.
private final class TalkScreenModel: ViewModel<TalkScreenState>, ScopedViewModel, @unchecked Sendable {
    init(id: Talk.ID) {
        super.init(initialState: TalkScreenState(id: id))
    }

    func didBecomeActive(_ activation: Activation<TalkScreenModel>) {
        activation.effect(.every(.seconds(1), startingNow: false)) { state, _ in state.ticks += 1 }
    }

    @MainActor func closeTapped() { dependency(DismissKey.self)() }
}

/// The feature: binds its model, hosts the sheet and the stack from its state, and gives each child a dismissal.
@MainActor
private final class TalksScope: Scope {
    let model: TalksModel

    init(_ meetings: [Talk]) {
        model = TalksModel(meetings)
        super.init()
        bind(model)
        let model = model
        let sheet = Scope()
        host(sheet)
        sheet.hostChild(following: model.map(\.editing)) { id in
            guard let meeting = model.state.meetings.first(where: { $0.id == id }) else { return nil }
            let edit = Behavior()
            edit.bind(TalkEditModel(title: meeting.title))
            let screen = Scope()
            screen.provide(DismissKey.self, Dismiss { model.editDismissed() })
            screen.host(edit)
            return screen
        }
        let stack = Scope()
        host(stack)
        stack.hostChildren(following: model.map(\.path), id: \.self) { id in
            let screen = Scope()
            screen.bind(TalkScreenModel(id: id))
            screen.provide(DismissKey.self, Dismiss { model.close(id) })
            return screen
        }
    }
}

/// A screen that saves, then dismisses itself.
private final class TalkRecordModel: ViewModel<TalkEditState>, ScopedViewModel, @unchecked Sendable {
    init() {
        super.init(initialState: TalkEditState(title: ""))
    }

    func didBecomeActive(_ activation: Activation<TalkRecordModel>) {
        activation.effect(.every(.seconds(1))) { state, _ in state.title += "." }
    }

    @MainActor func endTapped() { dependency(DismissKey.self)() }
}

private struct TalkDraftState: ViewState {
    var talks: [Talk] = []
    var draft: Talk?
}

/// A list whose edit sheet writes a draft that is part of the list's own state.
private final class TalkListModel: ViewModel<TalkDraftState>, ScopedViewModel, @unchecked Sendable {
    init(_ talks: [Talk]) {
        super.init(initialState: TalkDraftState(talks: talks))
    }

    func editTapped(_ id: Talk.ID) { write { $0.draft = $0.talks[id: id] } }

    /// Done: the list reads the draft its sheet wrote, and saves it.
    func doneTapped() {
        write {
            guard let draft = $0.draft else { return }
            $0.talks[id: draft.id] = draft
            $0.draft = nil
        }
    }
}

/// The sheet's model: a part model of the list's draft.
private final class TalkDraftModel: ViewModel<Talk>, ScopedViewModel, @unchecked Sendable {
    func titleChanged(_ title: String) { write { $0.title = title } }
}

@MainActor
private final class TalkListScope: Scope {
    let model: TalkListModel

    init(_ talks: [Talk]) {
        model = TalkListModel(talks)
        super.init()
        bind(model)
        let model = model
        hostChild(following: model.map { $0.draft?.id }) { id in
            guard id != nil else { return nil }
            let sheet = Behavior()
            sheet.bind(TalkDraftModel(\.draft, of: model))
            return sheet
        }
    }
}

@Suite("Testing a whole feature: a scope with its children")
@MainActor
struct WholeFeatureTests {
    fileprivate let standup = Talk(id: 1, title: "Standup")
    fileprivate let retro = Talk(id: 2, title: "Retro")

    @Test("W5: a host of a feature reaches its sheet's model without casts, and the sheet dismisses itself")
    func sheetOfAFeature() throws {
        let feature = TalksScope([standup, retro])
        let meetings = TestHost(feature.model, in: feature)
        #expect(meetings.child(TalkEditModel.self) == nil)

        meetings.model.editTapped(retro.id)
        let edit = try #require(meetings.child(TalkEditModel.self))
        #expect(edit.state.title == "Retro")

        edit.doneTapped()
        meetings.expect(
            TalksState(meetings: [standup, retro], editing: retro.id),
            TalksState(meetings: [standup, retro]))
        #expect(meetings.child(TalkEditModel.self) == nil, "the sheet went with the state that showed it")
        #expect(meetings.dismissals == 0, "the sheet's dismissal was the feature's, not the host's")
    }

    @Test(
        "W5, W1: a sheet whose model is a part of the feature's state: one recorder sees its writes, and Done reads the draft"
    )
    func sheetWritesThroughItsParent() throws {
        let feature = TalkListScope([standup, retro])
        let list = TestHost(feature.model, in: feature)
        list.model.editTapped(retro.id)
        let sheet = try #require(list.child(TalkDraftModel.self))
        sheet.titleChanged("Retrospective")
        list.model.doneTapped()
        let renamed = Talk(id: retro.id, title: "Retrospective")
        list.expect(
            TalkDraftState(talks: [standup, retro], draft: retro),
            TalkDraftState(talks: [standup, retro], draft: renamed),
            TalkDraftState(talks: [standup, renamed]))
        #expect(list.child(TalkDraftModel.self) == nil, "the sheet went with its draft")
        #expect(sheet.state == renamed, "a part model keeps its last state once its part is gone")
    }

    @Test("W5: a host of a feature reaches each screen of a stack by the identity of its element")
    func stackOfAFeature() async throws {
        let feature = TalksScope([standup, retro])
        let meetings = TestHost(feature.model, in: feature)
        meetings.model.open(standup.id)
        meetings.model.open(retro.id)
        let second = try #require(meetings.child(TalkScreenModel.self, id: retro.id))
        #expect(second.state.id == retro.id)
        #expect(meetings.child(TalkScreenModel.self) == nil, "two screens: the identity tells them apart")
        #expect(meetings.child(TalkScreenModel.self, id: 3) == nil)

        await meetings.clock.advance(by: .seconds(2))
        #expect(second.state.ticks == 2)
        second.closeTapped()
        #expect(meetings.child(TalkScreenModel.self, id: retro.id) == nil)
        let first = try #require(meetings.child(TalkScreenModel.self))
        #expect(first.state.id == standup.id)
        _ = meetings.states.history
        meetings.detach()  // the remaining screen ticks for as long as it is shown
    }

    @Test("W5: a screen that dismisses itself ends its host cleanly: its effects stop, and the dismissal is counted")
    func screenDismissesItself() async {
        let record = TestHost(TalkRecordModel())
        await record.clock.advance(by: .seconds(1))
        record.expect(TalkEditState(title: "."), TalkEditState(title: ".."))
        record.model.endTapped()
        #expect(record.dismissals == 1)
        #expect(record.behavior.state == .detached)
        await record.clock.advance(by: .seconds(5))
        record.expect()
    }

    @Test("W5: a screen that dismisses itself in a test's tree that provides no dismissal fails the test, and goes on")
    func dismissalWithNothingToDismiss() {
        let root = RootScope()
        root.provide(.testing(clock: TestClock()))
        let screen = Behavior()
        let record = TalkRecordModel()
        screen.bind(record)
        root.host(screen)
        withKnownIssue {
            record.endTapped()
        } matching: { issue in
            text(of: issue).contains("the test used Dismiss of DismissKey's test value")
        }
        #expect(screen.state == .active, "nothing was dismissed")
        screen.detach()
    }

    @Test("W5: a feature that binds another model than the one given fails the test at the host's line")
    func modelNotInTheFeature() {
        let line = #line + 2
        withKnownIssue {
            _ = TestHost(TalksModel([]), in: TalksScope([]))
        } matching: { issue in
            issue.sourceLocation?.line == line
                && text(of: issue).contains(
                    "TestHost hosted TalksScope, but nothing in its tree binds the TalksModel given")
        }
    }
}
