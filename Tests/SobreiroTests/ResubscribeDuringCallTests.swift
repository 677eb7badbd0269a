import Dispatch
import Foundation
import Sobreiro
import SobreiroPrimitives
import Synchronization
import TestSupport
import Testing

/// D3 for a target subscribed again while a thread still calls the entry it had: each test controls the
/// interleaving with gates inside renders.
@Suite("Subscribing a target again while a thread still calls its removed entry")
struct ResubscribeDuringCallTests {
    /// A render that ends its own subscription (unsubscribing itself, or cancelling its token) and keeps running;
    /// another thread subscribes the same view meanwhile, and must wait for that render.
    @Test("D3: a render that unsubscribes itself, then another thread subscribes the view", arguments: [false, true])
    func selfRemovalThenResubscribe(viaToken: Bool) async {
        let model = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let box = Locked<ProbeView<Counter>?>(nil)
        let tokenBox = Locked<StateSubscription?>(nil)
        let view = ProbeView<Counter> { state in
            guard state.count == 1, once.exchange(false, ordering: .relaxed), let me = box.withLock({ $0 }) else {
                return
            }
            if viaToken { tokenBox.withLock { $0 }?.cancel() } else { model.unsubscribe(view: me) }
            gate.pause()
        }
        box.withLock { $0 = view }
        let token = model.subscribe(view: view)
        tokenBox.withLock { $0 = token }
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        #expect(model.subscriberCount == 0)
        let subscriber = onAnotherThread { model.subscribe(view: view) }
        let returnedWhileHeld = await signalled(subscriber, within: 3)
        gate.release()
        await expectSignalled(writer)
        if !returnedWhileHeld { await expectSignalled(subscriber) }
        #expect(!returnedWhileHeld, "the subscribe returned while the old render was still running")
        #expect(view.overlappingRenders == 0)
        box.withLock { $0 = nil }
        tokenBox.withLock { $0 = nil }
    }

    /// The new subscriber runs a transaction of another model m2, and the old render, once released, writes m2:
    /// the subscriber cannot wait for that render, which waits for it, so the render's thread renders the new
    /// subscription once it returns.
    @Test("D3: a subscriber in another model's transaction that the old render writes", arguments: [false, true])
    func subscriberInOtherTransaction(nestedInSameModelTransaction: Bool) async {
        let m1 = CounterModel()
        let m2 = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let view = ProbeView<Counter> { s in
            if s.count == 1, once.exchange(false, ordering: .relaxed) {
                gate.pause()
                m2.write { $0.label = "from view" }
            }
        }
        m1.subscribe(view: view)
        let writer = onAnotherThread { m1.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let remover = onAnotherThread { m1.unsubscribe(view: view) }
        await expectEventually { m1.subscriberCount == 0 }
        let subscriber = onAnotherThread {
            m2.write {
                if nestedInSameModelTransaction {
                    m1.write {
                        m1.subscribe(view: view)
                        $0.label = "again"
                    }
                } else {
                    m1.subscribe(view: view)
                }
            }
        }
        try? await Task.sleep(for: .milliseconds(300))  // the subscriber waits for the old render, holding m2's lock
        gate.release()
        let finished = await signalled(writer)
        let subscribed = await signalled(subscriber)
        await expectSignalled(remover)
        #expect(finished && subscribed)
        #expect(view.overlappingRenders == 0)
        #expect(view.history.last == m1.state)
    }

    /// Two views crossing. v1's old render (deliverer of m1) subscribes v2 into m2 again, while v2's old
    /// render (deliverer of m2) subscribes v1 into m1 again; both old entries were removed meanwhile.
    @Test("D3: two views crossing, each old render resubscribing the other")
    func crossingResubscribes() async {
        let m1 = CounterModel()
        let m2 = CounterModel()
        let g1 = RenderGate()
        let g2 = RenderGate()
        let once1 = Atomic<Bool>(true)
        let once2 = Atomic<Bool>(true)
        let box1 = Locked<ProbeView<Counter>?>(nil)
        let box2 = Locked<ProbeView<Counter>?>(nil)
        let v1 = ProbeView<Counter> { s in
            guard s.count == 1, once1.exchange(false, ordering: .relaxed), let v2 = box2.withLock({ $0 }) else {
                return
            }
            g1.pause()
            m2.subscribe(view: v2)
        }
        let v2 = ProbeView<Counter> { s in
            guard s.count == 1, once2.exchange(false, ordering: .relaxed), let v1 = box1.withLock({ $0 }) else {
                return
            }
            g2.pause()
            m1.subscribe(view: v1)
        }
        box1.withLock { $0 = v1 }
        box2.withLock { $0 = v2 }
        m1.subscribe(view: v1)
        m2.subscribe(view: v2)
        let w1 = onAnotherThread { m1.write { $0.count = 1 } }
        await g1.waitUntilPaused()
        let w2 = onAnotherThread { m2.write { $0.count = 1 } }
        await g2.waitUntilPaused()
        let r1 = onAnotherThread { m1.unsubscribe(view: v1) }
        let r2 = onAnotherThread { m2.unsubscribe(view: v2) }
        await expectEventually { m1.subscriberCount == 0 && m2.subscriberCount == 0 }
        g1.release()
        try? await Task.sleep(for: .milliseconds(300))  // v1's old render now waits for v2's old render
        g2.release()
        var all = true
        for done in [w1, w2, r1, r2] { all = await signalled(done) && all }
        #expect(all, "deadlock")
        #expect(v1.overlappingRenders == 0 && v2.overlappingRenders == 0)
        box1.withLock { $0 = nil }
        box2.withLock { $0 = nil }
    }

    /// Thread D renders the view's first state (held); R unsubscribes it; the writer W becomes the deliverer and
    /// another view's render subscribes the view again: the new entry is not rendered while D is inside the old
    /// render.
    @Test("D3: a re-subscribe from inside a render on the deliverer's thread")
    func inNextRoundResubscribe() async {
        let model = CounterModel()
        let gate = RenderGate()
        let onceV = Atomic<Bool>(true)
        let v = ProbeView<Counter> { s in
            if s.count == 0, onceV.exchange(false, ordering: .relaxed) { gate.pause() }
        }
        let vBox = Locked<ProbeView<Counter>?>(v)
        let onceX = Atomic<Bool>(true)
        let x = ProbeView<Counter> { s in
            if s.count == 1, onceX.exchange(false, ordering: .relaxed), let v = vBox.withLock({ $0 }) {
                model.subscribe(view: v)
            }
        }
        model.subscribe(view: x)
        let d = onAnotherThread { model.subscribe(view: v) }
        await gate.waitUntilPaused()
        let r = onAnotherThread { model.unsubscribe(view: v) }
        await expectEventually { model.subscriberCount == 1 }
        let w = onAnotherThread { model.write { $0.count = 1 } }
        let writerReturnedWhileHeld = await signalled(w, within: 3)
        gate.release()
        var all = true
        for done in [d, r] { all = await signalled(done) && all }
        if !writerReturnedWhileHeld { all = await signalled(w) && all }
        #expect(all)
        #expect(v.overlappingRenders == 0)
        vBox.withLock { $0 = nil }
    }

    final class Canary: Sendable {
        func touch() {}
    }

    /// An unsubscribe that cannot wait for the handler's running call (the call writes a model whose transaction
    /// the unsubscribe runs in): the model lets go of the handler, and its captures, once that call ends, not at
    /// some later change of its subscriber list.
    @Test("R5: a handler let go of during its call, by an unsubscribe that cannot wait, goes when that call ends")
    func leavingKeepsHandlerAlive() async {
        let m1 = CounterModel()
        let m2 = CounterModel()
        let follower = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let weakCanary = WeakBox()
        do {
            let canary = Canary()
            weakCanary.set(canary)
            let token = follower.subscribe(to: m1) { (s: Counter) in
                canary.touch()
                if s.count == 1, once.exchange(false, ordering: .relaxed) {
                    gate.pause()
                    m2.write { $0.label = "from handler" }
                }
            }
            _ = token
        }
        let writer = onAnotherThread { m1.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let remover = onAnotherThread { m2.write { follower.unsubscribe(from: m1) } }
        try? await Task.sleep(for: .milliseconds(300))  // the remover waits for the handler, holding m2's lock
        gate.release()
        let all1 = await signalled(writer)
        let all2 = await signalled(remover)
        try? await Task.sleep(for: .milliseconds(200))
        let aliveAfterCallEnded = weakCanary.isAlive
        let other = ProbeView<Counter>()
        m1.subscribe(view: other)  // any change of m1's list forgets finished calls
        let aliveAfterListChange = weakCanary.isAlive
        #expect(all1 && all2)
        #expect(!aliveAfterCallEnded, "the handler's captures outlived its unsubscribe and its last call")
        #expect(!aliveAfterListChange)
    }

    final class WeakBox: @unchecked Sendable {
        private let lock = NSLock()
        private weak var value: AnyObject?
        func set(_ object: AnyObject) { lock.withLock { value = object } }
        var isAlive: Bool { lock.withLock { value != nil } }
    }

    enum OldRenderAction: String, CaseIterable, Sendable {
        case unsubscribe, subscribeAgain, write, unsubscribeAndSubscribe
    }

    /// While the new subscriber waits for the old entry's call, that call (a delivery, or a first
    /// render of another subscribing thread) unsubscribes the view, subscribes it again, writes the model, or both.
    @Test(
        "D3: the old call acts on the model while the new subscriber waits",
        arguments: OldRenderAction.allCases, [false, true]
    )
    func oldCallActs(action: OldRenderAction, subscriberInTransaction: Bool) async {
        for oldIsFirstRender in [false, true] {
            let model = CounterModel()
            let gate = RenderGate()
            let once = Atomic<Bool>(true)
            let box = Locked<ProbeView<Counter>?>(nil)
            let trigger = oldIsFirstRender ? 0 : 1
            let view = ProbeView<Counter> { s in
                guard s.count == trigger, once.exchange(false, ordering: .relaxed), let me = box.withLock({ $0 })
                else { return }
                gate.pause()
                switch action {
                case .unsubscribe: model.unsubscribe(view: me)
                case .subscribeAgain: model.subscribe(view: me)
                case .write: model.write { $0.count = 7 }
                case .unsubscribeAndSubscribe:
                    model.unsubscribe(view: me)
                    model.subscribe(view: me)
                    model.write { $0.count = 8 }
                }
            }
            box.withLock { $0 = view }
            let first: DispatchSemaphore
            if oldIsFirstRender {
                first = onAnotherThread { model.subscribe(view: view) }
            } else {
                model.subscribe(view: view)
                first = onAnotherThread { model.write { $0.count = 1 } }
            }
            await gate.waitUntilPaused()
            let remover = onAnotherThread { model.unsubscribe(view: view) }
            await expectEventually { model.subscriberCount == 0 }
            let subscriber = onAnotherThread {
                if subscriberInTransaction {
                    model.write {
                        model.subscribe(view: view)
                        $0.label = "again"
                    }
                } else {
                    model.subscribe(view: view)
                }
            }
            try? await Task.sleep(for: .milliseconds(200))
            gate.release()
            var all = true
            for done in [first, remover, subscriber] { all = await signalled(done) && all }
            let subscribed = model.subscriberCount
            let history = view.history
            // If the view is still subscribed it must be current (D4); D3: no overlap, no older after newer.
            let counts = history.map(\.count)
            let backwards = zip(counts, counts.dropFirst()).contains { $0 > $1 }
            #expect(all, "deadlock \(action) \(subscriberInTransaction) \(oldIsFirstRender)")
            #expect(view.overlappingRenders == 0, "\(action) \(subscriberInTransaction) \(oldIsFirstRender)")
            #expect(!backwards, "\(action) \(subscriberInTransaction) \(oldIsFirstRender): \(counts)")
            if subscribed == 1 {
                #expect(history.last == model.state, "\(action) \(subscriberInTransaction) \(oldIsFirstRender)")
            }
            box.withLock { $0 = nil }
        }
    }
}

struct RefollowCount: ViewState {
    var count: Int
}

/// Overlap counter for handlers.
final class RefollowOverlap: Sendable {
    private let inFlight = Atomic<Int>(0)
    private let overlaps = Atomic<Int>(0)
    var count: Int { overlaps.load(ordering: .relaxed) }
    func enter() {
        if inFlight.add(1, ordering: .acquiringAndReleasing).newValue > 1 { overlaps.add(1, ordering: .relaxed) }
    }
    func leave() { inFlight.subtract(1, ordering: .acquiringAndReleasing) }
}

/// The paths named in the brief that the fix should cover: projections, follower models, the token's cancel.
@Suite("Following again while a thread still calls the removed entry: projections, followers, tokens")
struct RefollowDuringCallTests {
    enum Path: String, CaseIterable, Sendable {
        /// A view following `model.map(\.count)`, removed by its token on another thread, subscribed again to the
        /// same projection instance.
        case viewOfProjection
        /// A follower model's handler (`subscribe(to:onChange:)`), removed with `unsubscribe(from:)`.
        case followerModel
        /// A follower model's handler of a projection, removed by its token, subscribed again to the same
        /// projection instance.
        case followerOfSameProjection
    }

    @Test("D3: a removed entry's call is waited for by the new subscription", arguments: Path.allCases)
    func covered(path: Path) async {
        let model = CounterModel()
        let follower = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let overlap = RefollowOverlap()
        let calls = Locked<[Int]>([])
        let body: @Sendable (Int) -> Void = { count in
            overlap.enter()
            calls.withLock { $0.append(count) }
            if count == 1, once.exchange(false, ordering: .relaxed) { gate.pause() }
            overlap.leave()
        }
        let view = ProbeView<RefollowCount> { c in body(c.count) }
        let projection = model.map { RefollowCount(count: $0.count) }
        let token: StateSubscription
        switch path {
        case .viewOfProjection: token = projection.subscribe(view: view)
        case .followerModel: token = follower.subscribe(to: model) { (s: Counter) in body(s.count) }
        case .followerOfSameProjection:
            token = follower.subscribe(to: projection) { (c: RefollowCount) in body(c.count) }
        }
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let remover = onAnotherThread {
            if path == .followerModel { follower.unsubscribe(from: model) } else { token.cancel() }
        }
        await expectEventually { model.subscriberCount == 0 }
        let subscriber = onAnotherThread {
            switch path {
            case .viewOfProjection: projection.subscribe(view: view)
            case .followerModel: follower.subscribe(to: model) { (s: Counter) in body(s.count) }
            case .followerOfSameProjection: follower.subscribe(to: projection) { (c: RefollowCount) in body(c.count) }
            }
        }
        let returnedWhileHeld = await signalled(subscriber, within: 3)
        gate.release()
        for done in [writer, remover] { await expectSignalled(done) }
        if !returnedWhileHeld { await expectSignalled(subscriber) }
        #expect(!returnedWhileHeld, "\(path)")
        #expect(overlap.count == 0, "\(path)")
    }
}

extension ResubscribeDuringCallTests {
    /// As the subscriber in another model's transaction, with a newer state committed before the re-subscribe: the
    /// render that the view finishes last is of the newest state.
    @Test("D3, D4: a subscriber that cannot wait for the old render ends the view on the newest state")
    func cutShortEndsOnOlderState() async {
        let m1 = CounterModel()
        let m2 = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let completed = Locked<[Int]>([])
        let view = ProbeView<Counter> { s in
            if s.count == 1, once.exchange(false, ordering: .relaxed) {
                gate.pause()
                m2.write { $0.label = "from view" }
            }
            completed.withLock { $0.append(s.count) }  // what the view "shows": the last render to finish
        }
        m1.subscribe(view: view)
        let writer = onAnotherThread { m1.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let remover = onAnotherThread { m1.unsubscribe(view: view) }
        await expectEventually { m1.subscriberCount == 0 }
        m1.write { $0.count = 2 }  // returns at once: the held deliverer takes the round
        let subscriber = onAnotherThread { m2.write { m1.subscribe(view: view) } }
        try? await Task.sleep(for: .milliseconds(300))
        gate.release()
        var all = true
        for done in [writer, remover, subscriber] { all = await signalled(done) && all }
        let shown = completed.withLock { $0 }
        #expect(all)
        #expect(view.overlappingRenders == 0)
        #expect(shown.last == m1.state.count, "the view ends on an older state than the model's (D3/D4)")
    }
}

/// Calls `onDeinit` when released.
final class RefollowDeinitProbe: Sendable {
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
    func touch() {}
}

extension ResubscribeDuringCallTests {
    /// A handler let go of while its call runs, whose captures' `deinit` uses the model: it runs with the model's
    /// lock released, whether a later change of the list is made plainly or inside a transaction of the model.
    @Test(
        "D1: a handler let go of during its call has its captures released with no lock held", arguments: [false, true])
    func leavingReleaseOutsideLock(sweepInTransaction: Bool) async {
        let m1 = CounterModel()
        let m2 = CounterModel()
        let follower = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let deinitRan = Atomic<Bool>(false)
        do {
            let probe = RefollowDeinitProbe {
                m1.write { $0.label = "deinit" }
                _ = m1.subscriberCount
                deinitRan.store(true, ordering: .relaxed)
            }
            follower.subscribe(to: m1) { (s: Counter) in
                probe.touch()
                if s.count == 1, once.exchange(false, ordering: .relaxed) {
                    gate.pause()
                    m2.write { $0.label = "from handler" }
                }
            }
        }
        let writer = onAnotherThread { m1.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let remover = onAnotherThread { m2.write { follower.unsubscribe(from: m1) } }
        try? await Task.sleep(for: .milliseconds(300))
        gate.release()
        let a = await signalled(writer)
        let b = await signalled(remover)
        try? await Task.sleep(for: .milliseconds(200))
        let other = ProbeView<Counter>()
        let sweeper = onAnotherThread {
            if sweepInTransaction {
                m1.write {
                    m1.subscribe(view: other); $0.count = 5
                }
            } else {
                m1.subscribe(view: other)
            }
        }
        let swept = await signalled(sweeper)
        #expect(a && b && swept, "deadlock")
        let ran = deinitRan.load(ordering: .relaxed)
        #expect(ran)
    }
}

extension ResubscribeDuringCallTests {
    /// The new subscription is made inside a transaction (so its token exists before its first render, which
    /// waits for the old call after the unlock); the old render cancels that new token while the subscriber waits.
    @Test("D3: the old render cancels the waiting new subscription's token")
    func oldRenderCancelsNewToken() async {
        let model = CounterModel()
        let gate = RenderGate()
        let once = Atomic<Bool>(true)
        let newToken = Locked<StateSubscription?>(nil)
        let view = ProbeView<Counter> { s in
            guard s.count == 1, once.exchange(false, ordering: .relaxed) else { return }
            gate.pause()
            newToken.withLock { $0 }?.cancel()
        }
        model.subscribe(view: view)
        let writer = onAnotherThread { model.write { $0.count = 1 } }
        await gate.waitUntilPaused()
        let remover = onAnotherThread { model.unsubscribe(view: view) }
        await expectEventually { model.subscriberCount == 0 }
        let subscriber = onAnotherThread {
            model.write {
                let token = model.subscribe(view: view)
                newToken.withLock { $0 = token }
                $0.label = "again"
            }
        }
        await expectEventually { newToken.withLock { $0 } != nil }
        try? await Task.sleep(for: .milliseconds(200))
        gate.release()
        var all = true
        for done in [writer, remover, subscriber] { all = await signalled(done) && all }
        #expect(all, "deadlock")
        #expect(view.overlappingRenders == 0)
        newToken.withLock { $0 = nil }
    }
}

/// A new subscription handed over to the thread that ends the old entry's call, where its subscribing thread could not
/// wait for that call.
@Suite("Handing a new subscription over to the thread ending the old call")
struct HandOverTests {
    /// What a third thread does to the handed-over subscription while it is held for the thread it was handed to.
    enum Waiter: CaseIterable, Sendable {
        /// Cancels its token: the cancel waits for that thread's render (R5).
        case cancel
        /// Subscribes the same live view again: the subscription is kept, and caught up after that render (V3).
        case subscribeAgain
    }

    /// S, subscribed in a transaction of m2 that T's old render (which removed its own entry) writes, is handed over
    /// to T. A cancel of S, or a subscribe of the same view, meanwhile waits for T, and returns once T has rendered S
    /// and given it up, also when T finds m1's lock taken as it ends its call.
    @Test(
        "R5, V3: a cancel or a subscribe waiting for a subscription handed over to another thread returns once that thread gave it up",
        arguments: Waiter.allCases, [false, true])
    func waitForHandedOverSubscription(waiter: Waiter, holdLock: Bool) async {
        let m1 = CounterModel()
        let m2 = CounterModel()
        let gate = RenderGate()
        let gate2 = RenderGate()
        let once = Atomic<Bool>(true)
        let box = Locked<ProbeView<Counter>?>(nil)
        let view = ProbeView<Counter> { s in
            guard s.count == 1, once.exchange(false, ordering: .relaxed), let me = box.withLock({ $0 }) else {
                return
            }
            m1.unsubscribe(view: me)
            gate.pause()
            m2.write { $0.label = "from view" }
            gate2.pause()
        }
        box.withLock { $0 = view }
        m1.subscribe(view: view)
        let writer = onAnotherThread { m1.write { $0.count = 1 } }  // T
        await gate.waitUntilPaused()
        #expect(m1.subscriberCount == 0)
        let tokenBox = Locked<StateSubscription?>(nil)
        let subscriber = onAnotherThread {
            m2.write {
                let token = m1.subscribe(view: view)
                tokenBox.withLock { $0 = token }
                $0.label = "sub"
            }
        }
        try? await Task.sleep(for: .milliseconds(300))
        gate.release()
        await gate2.waitUntilPaused()
        let subscribed = await signalled(subscriber)
        let waiting = onAnotherThread {
            switch waiter {
            case .cancel: tokenBox.withLock { $0 }?.cancel()
            case .subscribeAgain: m1.subscribe(view: view)
            }
        }
        let returnedEarly = await signalled(waiting, within: 0.5)
        let lockGate = RenderGate()
        var locker: DispatchSemaphore?
        if holdLock {
            locker = onAnotherThread { m1.write { lockGate.pause() } }
            await lockGate.waitUntilPaused()
        }
        gate2.release()
        try? await Task.sleep(for: .milliseconds(300))
        if holdLock { lockGate.release() }
        let w = await signalled(writer)
        var l = true
        if let locker { l = await signalled(locker) }
        let returned = returnedEarly ? true : await signalled(waiting)
        #expect(subscribed && w && l)
        #expect(returned, "the \(waiter) waiting for the handed-over subscription never returned")
        if waiter == .subscribeAgain { #expect(view.history.last == m1.state) }
        box.withLock { $0 = nil }
        tokenBox.withLock { $0 = nil }
    }

    /// A follower's handler handed over to T and unsubscribed while held for T: the unsubscribe returns once T gave
    /// it up, and the handler's captures go then.
    @Test("R5: a handed-over handler unsubscribed while held returns, and its captures go, once its holder gave it up")
    func handedOverHandlerUnsubscribed() async {
        let m1 = CounterModel()
        let m2 = CounterModel()
        let follower = CounterModel()
        let gate = RenderGate()
        let gate2 = RenderGate()
        let once = Atomic<Bool>(true)
        let weakCanary = ResubscribeDuringCallTests.WeakBox()
        follower.subscribe(to: m1) { (s: Counter) in
            guard s.count == 1, once.exchange(false, ordering: .relaxed) else { return }
            follower.unsubscribe(from: m1)
            gate.pause()
            m2.write { $0.label = "from handler" }
            gate2.pause()
        }
        let writer = onAnotherThread { m1.write { $0.count = 1 } }  // T
        await gate.waitUntilPaused()
        let subscriber = onAnotherThread {
            let canary = ResubscribeDuringCallTests.Canary()
            weakCanary.set(canary)
            m2.write {
                follower.subscribe(to: m1) { (_: Counter) in canary.touch() }
                $0.label = "sub"
            }
        }
        try? await Task.sleep(for: .milliseconds(300))
        gate.release()
        await gate2.waitUntilPaused()
        let subscribed = await signalled(subscriber)
        let unsub = onAnotherThread { follower.unsubscribe(from: m1) }
        let unsubEarly = await signalled(unsub, within: 0.5)
        let lockGate = RenderGate()
        let locker = onAnotherThread { m1.write { lockGate.pause() } }
        await lockGate.waitUntilPaused()
        gate2.release()
        try? await Task.sleep(for: .milliseconds(300))
        lockGate.release()
        let w = await signalled(writer)
        let l = await signalled(locker)
        let u = unsubEarly ? true : await signalled(unsub)
        #expect(subscribed && w && l)
        #expect(u, "unsubscribe(from:) of the handed-over handler never returned")
        #expect(!weakCanary.isAlive, "the handed-over handler's captures outlived its end and its last call")
    }

    /// Renders of m1 write m2; other threads subscribe views to m1 again inside m2's transactions (where they hand
    /// over), unsubscribe them, and write m1. Nothing hangs, no view is entered twice or goes back, and every view
    /// ends on m1's state once writes stop.
    @Test(
        "D3, D4: re-subscribes that hand over, racing writers and unsubscribes, never hang, overlap or go back",
        arguments: Array(0..<3))
    func handOverStress(run: Int) async {
        let m1 = CounterModel()
        let m2 = CounterModel()
        let views = (0..<4).map { i in
            ProbeView<Counter> { s in
                if (s.count + i) % 3 == 0 { m2.write { $0.label = "v\(i) \(s.count)" } }
            }
        }
        for v in views { m1.subscribe(view: v) }
        let iterations = 5000
        let writer = onAnotherThread {
            for _ in 0..<iterations { m1.write { $0.count += 1 } }
        }
        let churners = (0..<2).map { c in
            onAnotherThread {
                var rng = SystemRandomNumberGenerator()
                for n in 0..<iterations {
                    let v = views[Int.random(in: 0..<views.count, using: &rng)]
                    switch (n + c) % 4 {
                    case 0: m1.unsubscribe(view: v)
                    case 1:
                        m2.write {
                            m1.subscribe(view: v); $0.label = "c\(c)"
                        }
                    case 2:
                        m1.write {
                            m1.subscribe(view: v); $0.count += 1
                        }
                    default: m1.subscribe(view: v)
                    }
                }
            }
        }
        var finished = await signalled(writer)
        for c in churners { finished = await signalled(c) && finished }
        #expect(finished, "hang")
        guard finished else { return }
        for v in views { m1.subscribe(view: v) }
        m1.write { $0.count += 1 }
        try? await Task.sleep(for: .milliseconds(300))
        let state = m1.state
        for (i, v) in views.enumerated() {
            #expect(v.overlappingRenders == 0, "view \(i) overlapped")
            #expect(v.history.last == state, "view \(i) ends on \(String(describing: v.history.last)) not \(state)")
            let counts = v.history.map(\.count)
            let backwards = zip(counts, counts.dropFirst()).filter { $0 > $1 }.count
            #expect(backwards == 0, "view \(i) older after newer \(backwards) times")
        }
    }
}
