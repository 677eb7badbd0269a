import Sobreiro
import Testing

/// R4 for the entries of a list of many subscribers: every entry that a change lets go of, and each handler
/// closure with it, is released only once no lock of the model is held, whichever slot it left.
@Suite("Releasing entries of a long subscriber list outside the lock")
struct ReleasedEntryLockTests {
    let probe = ReleaseProbe()
    /// Subscribed before each test, so that the list keeps its many-entry storage.
    let others = (0..<3).map { _ in ProbeView<SpyHolder>() }

    init() {
        for view in others { probe.model.subscribe(view: view) }
    }

    /// Subscribes `target` with a handler that holds the last reference to a fresh spy.
    @discardableResult
    func subscribeWithSpy(_ target: AnyObject, replacingLive: Bool = false) -> StateSubscription {
        let spy = probe.spy()
        return probe.model.subscription(of: target, replacingLive: replacingLive) { _, _, _, _ in _ = spy }
    }

    @Test(
        "R4: unsubscribing the entry in the first, a middle or the last slot releases it after unlocking",
        arguments: [0, 1, 3])
    func unsubscribeFromSlot(slot: Int) {
        let target = ProbeView<SpyHolder>()
        var views = others
        views.insert(target, at: slot)
        for view in views { probe.model.unsubscribe(view: view) }
        for view in views { probe.model.subscribe(view: view) }
        subscribeWithSpy(target, replacingLive: true)
        probe.model.unsubscribe(view: target)
        #expect(probe.log.all == ["released unlocked"])
        #expect(probe.model.subscriberCount == others.count)
    }

    @Test("R4: replacing a live entry among many releases the replaced one after unlocking")
    func replaceLiveAmongMany() {
        let target = ProbeView<SpyHolder>()
        subscribeWithSpy(target)
        _ = probe.model.subscription(of: target, replacingLive: true) { _, _, _, _ in }
        #expect(probe.log.all == ["released unlocked"])
        #expect(probe.model.subscriberCount == others.count + 1)
    }

    @Test("R4: the new entry that a kept live subscription makes useless is released after unlocking")
    func rejectedNewEntry() {
        let target = ProbeView<SpyHolder>()
        let kept = probe.model.subscription(of: target, replacingLive: false) { _, _, _, _ in }
        let returned = subscribeWithSpy(target)
        #expect(returned === kept)
        #expect(probe.log.all == ["released unlocked"])
    }

    @Test("R4: an entry of many unsubscribed inside a transaction is released after the transaction unlocks")
    func unsubscribeInsideTransaction() {
        let target = ProbeView<SpyHolder>()
        subscribeWithSpy(target)
        probe.model.write {
            probe.model.state.count = 1
            probe.model.unsubscribe(view: target)
            // Still in the transaction: the lock is held, so the entry must still be alive.
            #expect(probe.log.all == [])
        }
        #expect(probe.log.all == ["released unlocked"])
    }

    @Test("R4: an entry of many replaced inside a transaction is released after the transaction unlocks")
    func replaceInsideTransaction() {
        let target = ProbeView<SpyHolder>()
        subscribeWithSpy(target)
        probe.model.write {
            probe.model.state.count = 1
            _ = probe.model.subscription(of: target, replacingLive: true) { _, _, _, _ in }
            #expect(probe.log.all == [])
        }
        #expect(probe.log.all == ["released unlocked"])
    }

    @Test("R4: pruning a dead entry among many, in a later round of one delivery, releases it after unlocking")
    func pruneDeadAmongMany() {
        let model = probe.model
        let probe = probe
        // A render subscribes a handler whose target dies at once, then writes: the next round meets the dead
        // entry, which no snapshot taken before it holds, so pruning drops its last reference.
        let host = ProbeView<SpyHolder> { state in
            guard state.count == 1 else { return }
            do {
                let target = ProbeView<SpyHolder>()
                let spy = probe.spy()
                _ = model.subscription(of: target, replacingLive: false) { _, _, _, _ in _ = spy }
            }
            model.write { $0.count = 2 }
        }
        model.subscribe(view: host)
        model.write { $0.count = 1 }
        #expect(host.history.map(\.count) == [0, 1, 2])
        #expect(probe.log.all == ["released unlocked"])
        #expect(model.subscriberCount == others.count + 1)
    }

    @Test("R4: unsubscribing a follower from every part of the model releases each handler after unlocking")
    func removeAllOfFollower() {
        let follower = CounterModel()
        do {
            let spies = (probe.spy(), probe.spy())
            follower.subscribe(to: probe.model) { _ in _ = spies.0 }
            follower.subscribe(to: probe.model.map(\.count)) { _ in _ = spies.1 }
        }
        follower.unsubscribe(from: probe.model)
        #expect(probe.log.all == ["released unlocked", "released unlocked"])
        #expect(probe.model.subscriberCount == others.count)
    }
}
