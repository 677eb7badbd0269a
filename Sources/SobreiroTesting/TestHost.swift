import Dispatch
public import ScopeKit
public import Sobreiro
import SobreiroPrimitives
public import SobreiroScopeKit

/// A scoped view model under test: hosted, active and recorded in one line, and torn down when the test ends.
///
/// The host binds the model to a behavior of its own and hosts that behavior in a root of its own, so the model
/// loads and becomes active at once, as on a screen that is shown. A ``StateRecorder`` records its states from
/// there on: the state the model had when it was given is taken as seen, and ``expect(_:fileID:filePath:line:column:)``
/// asserts the ones that followed.
///
/// ```swift
/// @Test @MainActor func counts() {
///     let counter = TestHost(CounterModel())
///     counter.model.increment()
///     counter.expect(CounterState(count: 1))
/// }
/// ```
///
/// When the test ends, so does the host, as any local constant; its `deinit` then checks and tears down:
/// - Effects are exhaustive: an effect operation of the model that still runs, even asleep on a ``TestClock``,
///   fails the test at the line that made the host, naming the effect, where it was declared and what it waits
///   for. The check waits for nothing, so a test that ends with work running holds up neither the main thread nor
///   the tests around it; an operation that is writing its result back as the test ends is not reported. Pass
///   `effects: .mayOutliveTest` to let them run (see ``EffectExhaustivity``).
/// - States are exhaustive, as for any recorder: once the test has asserted states, one delivered after the last
///   look fails the test, at the same line.
/// - The tree is torn down: the model's behavior detaches, which cancels the model's work. States that the model
///   writes while it deactivates are not recorded.
///
/// The tree runs on the main actor, and so does the host: mark the test or its suite `@MainActor`. A host released
/// elsewhere fails the test, saying so, and detaches its tree on the main actor later.
@MainActor
public final class TestHost<Model: ViewModel<State> & ScopedViewModel, State> {
    /// The view model under test.
    public nonisolated let model: Model

    /// The states of ``model`` since it was given to the host, the first one taken as seen. Await states with it,
    /// or read its ``StateRecorder/history``.
    public nonisolated let states: StateRecorder<State>

    /// The behavior the host hosts in its root: the one the model is bound to, or the feature given to
    /// ``init(_:in:clock:dependencies:effects:fileID:filePath:line:column:)``. Give it to a ``LifecycleRecorder``, or
    /// host other behaviors beside it.
    public let behavior: Behavior

    /// How many times the model, or anything in the host's tree that reads the root's `DismissKey`, dismissed
    /// itself. Each dismissal detaches ``behavior``, as a screen that goes away.
    public private(set) var dismissals = 0

    /// The root that hosts ``behavior``.
    public let root = RootScope()

    /// The clock the model's timed effects wait on, which the root provides under `ClockKey`: time passes only
    /// when the test moves it, with ``TestClock/advance(by:fileID:filePath:line:column:)``.
    public nonisolated let clock: TestClock

    private nonisolated let effects: EffectExhaustivity
    private nonisolated let subscription: StateSubscription
    private nonisolated let createdAt: CallerLocation

    /// Hosts `model` in a tree of its own until the host is released, at the end of the test that holds it.
    ///
    /// The model reads `dependencies` before any provider or default: its root overrides them, so the model's
    /// `didLoad()` and first `didBecomeActive(_:)` already see them. Its effects wait on `clock`, unless
    /// `dependencies` give `ClockKey` another value. A key that neither `dependencies` nor the tree provides reads
    /// its `testValue`. The root provides a `DismissKey` that detaches the model's behavior, so a screen that
    /// dismisses itself ends, and ``dismissals`` counts it.
    ///
    /// ```swift
    /// var fakes = DependencyValues()
    /// fakes[APIClientKey.self] = StubAPIClient(items: [item])
    /// let list = TestHost(ListViewModel(), dependencies: fakes)
    /// ```
    ///
    /// - Parameters:
    ///   - model: The view model to test, bound to no behavior yet.
    ///   - clock: The clock its timed effects wait on; a new one by default. Pass the one a fake waits on too.
    ///   - dependencies: The values that replace, for this model, whatever the tree would provide.
    ///   - effects: Whether the model's effect operations must have finished when the test ends.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public convenience init(
        _ model: Model,
        clock: TestClock = TestClock(),
        dependencies: DependencyValues = DependencyValues(),
        effects: EffectExhaustivity = .exhaustive,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let behavior = Behavior()
        let binding = behavior.bind(model)
        self.init(
            model, behavior: behavior, clock: clock, dependencies: dependencies, effects: effects,
            at: (fileID, filePath, line, column))
        if case .refused(let error) = binding {
            reportFailure("TestHost could not host \(type(of: model)): \(error)", at: createdAt)
        }
    }

    /// Hosts a whole feature, `feature` with its children, in a tree of its own until the host is released, and
    /// records `model`, the feature's own model, which the feature binds.
    ///
    /// Everything else is as for ``init(_:clock:dependencies:effects:fileID:filePath:line:column:)``: the root
    /// overrides `dependencies` and provides a `DismissKey` that detaches `feature`; the end of the test checks the
    /// effects of `model`. Reach the models of the feature's children with ``child(_:)`` and ``child(_:id:)``.
    ///
    /// ```swift
    /// let detail = TestHost(feature.model, in: feature)  // feature: a scope that binds its model and hosts a sheet
    /// detail.model.editTapped()
    /// let edit = try #require(detail.child(EditViewModel.self))
    /// ```
    ///
    /// - Parameters:
    ///   - model: The model that `feature`, or a behavior under it, binds.
    ///   - feature: The behavior to host, detached until now.
    ///   - clock: The clock the tree's timed effects wait on; a new one by default.
    ///   - dependencies: The values that replace, for the whole feature, whatever the tree would provide.
    ///   - effects: Whether the model's effect operations must have finished when the test ends.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public convenience init(
        _ model: Model,
        in feature: Behavior,
        clock: TestClock = TestClock(),
        dependencies: DependencyValues = DependencyValues(),
        effects: EffectExhaustivity = .exhaustive,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(
            model, behavior: feature, clock: clock, dependencies: dependencies, effects: effects,
            at: (fileID, filePath, line, column))
        if !contains(model) {
            reportFailure(
                "TestHost hosted \(type(of: feature)), but nothing in its tree binds the \(type(of: model)) given: "
                    + "pass the model that the feature binds, or bind it in the feature's initializer.",
                at: createdAt
            )
        }
    }

    private init(
        _ model: Model,
        behavior: Behavior,
        clock: TestClock,
        dependencies: DependencyValues,
        effects: EffectExhaustivity,
        at site: (fileID: String, filePath: StaticString, line: UInt, column: UInt)
    ) {
        self.model = model
        self.behavior = behavior
        self.clock = clock
        self.effects = effects
        createdAt = CallerLocation(fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column)
        states = StateRecorder(fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column)
        subscription = model.subscribe(view: states)
        // The state the test starts from is the one it built: what the model does from here on is what it asserts.
        _ = states.history
        root.provide(.testing(clock: clock))
        root.provide(DismissKey.self, Dismiss { [weak self] in self?.dismiss() })
        root.override(dependencies)
        // Before the effects start: a job that resumes an operation, such as one woken by an element of a sequence
        // it consumes, must count, or settling could end while the operation still counts as waiting.
        EffectActivity.countJobs()
        root.host(behavior)
    }

    /// Tears the tree down; see the type's discussion.
    deinit {
        if effects == .exhaustive, let failure = unfinishedEffects(of: model) {
            reportFailure(failure, at: createdAt)
        }
        subscription.cancel()
        let (behavior, root) = (behavior, root)
        guard MainQueue.isCurrent else {
            reportFailure(
                "TestHost of \(type(of: model)) was released off the main actor, where its tree cannot be torn down: "
                    + "mark the test or its suite @MainActor.",
                at: createdAt
            )
            // The tree goes on the main actor too: the closure holds the last references to it.
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    _ = behavior.detach()
                    _ = root
                }
            }
            return
        }
        MainActor.assumeIsolated { _ = behavior.detach() }
    }

    /// Asserts that the states delivered since the last look are exactly `expected`, in order; see
    /// ``StateRecorder/expect(_:fileID:filePath:line:column:)-(State...,_,_,_,_)``.
    ///
    /// - Parameters:
    ///   - expected: The states that should have been delivered since the last look.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public nonisolated func expect(
        _ expected: State...,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        states.expect(expected, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Waits until every effect operation of the model has finished or is asleep on a ``TestClock``; see
    /// ``settleEffects(of:timeout:fileID:filePath:line:column:)``.
    ///
    /// - Parameters:
    ///   - timeout: The safety net: how long to wait for the effects to settle before failing.
    ///   - fileID: The caller's file ID, where a failure is reported; leave the default.
    ///   - filePath: The caller's file path, where a failure is reported; leave the default.
    ///   - line: The caller's line, where a failure is reported; leave the default.
    ///   - column: The caller's column, where a failure is reported; leave the default.
    public func settleEffects(
        timeout: Duration = .seconds(30),
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await SobreiroTesting.settleEffects(
            of: model,
            timeout: timeout,
            fileID: fileID,
            filePath: filePath,
            line: line,
            column: column
        )
    }

    /// Detaches the model's behavior, as when its screen goes away: the model deactivates and its effects are
    /// cancelled. ``attach()`` hosts it again.
    public func detach() {
        behavior.detach()
    }

    /// Hosts the model's behavior again after ``detach()``: the model becomes active again and restarts its work.
    public func attach() {
        root.host(behavior)
    }

    /// The model of type `type` bound in the host's tree, for a feature hosted with its children: `nil` if there is
    /// none, or more than one (then use ``child(_:id:)``).
    ///
    /// - Parameter type: The type of the child's model.
    /// - Returns: The one model of that type in the tree, if there is exactly one.
    public func child<Child: ScopedViewModel>(_ type: Child.Type) -> Child? {
        let found = models(of: type, id: nil)
        return found.count == 1 ? found[0] : nil
    }

    /// The model of type `type` bound under the child that a route hosts for the element identified by `id`, such as
    /// a screen on a stack: `nil` if there is none.
    ///
    /// - Parameters:
    ///   - type: The type of the child's model.
    ///   - id: The identity of the element of state the route hosts the child for.
    /// - Returns: The model, if the tree holds one there.
    public func child<Child: ScopedViewModel, ID: Hashable>(_ type: Child.Type, id: ID) -> Child? {
        models(of: type, id: AnyHashable(id)).first
    }

    /// The models of type `type` bound in the host's tree, under a route's child for `id` if one is given.
    private func models<Child: ScopedViewModel>(of type: Child.Type, id: AnyHashable?) -> [Child] {
        var found: [Child] = []
        // Depth first, in the order of the tree, each node with the route identity it stands under.
        var pending: [(node: Behavior, key: AnyHashable?)] = [(behavior, nil)]
        while let (node, inherited) = pending.popLast() {
            var key = inherited
            if let own = node.routeKey { key = own }
            if let model = node.boundModel as? Child, id == nil || key == id { found.append(model) }
            if let scope = node as? Scope { pending += scope.children.reversed().map { ($0, key) } }
        }
        return found
    }

    /// Whether `model` is bound in the host's tree.
    private func contains(_ model: Model) -> Bool {
        models(of: Model.self, id: nil).contains { $0 === model }
    }

    /// A dismissal through the root's `DismissKey`: the hosted behavior goes, as a screen that goes away.
    private func dismiss() {
        dismissals += 1
        behavior.detach()
    }
}
