import Sobreiro

extension ConcurrentRun {
    /// One thread of a concurrent run, with its own generator, views and (for the first threads) follower.
    struct Worker {
        let thread: Int
        let models: [PlainTally]
        let bounces: Bounces
        var generator: SplitMix64
        var views: [OwnedView] = []
        var report = ThreadReport()
        private var nextViewID: Int

        init(thread: Int, seed: UInt64, models: [PlainTally], bounces: Bounces) {
            self.thread = thread
            self.models = models
            self.bounces = bounces
            generator = SplitMix64(seed: seed &* 31 &+ UInt64(thread) &+ 1)
            nextViewID = (thread + 1) * 100_000
            if thread < ConcurrentRun.models { report.follower = thread }
        }

        mutating func run(operations: Int) {
            views = (0..<ConcurrentRun.viewsPerThread).map { _ in makeView() }
            for _ in 0..<operations { step() }
            report.views = views
        }

        private mutating func step() {
            let index = generator.below(ConcurrentRun.models)
            let other = generator.below(ConcurrentRun.models)
            let slot = generator.below(ConcurrentRun.viewsPerThread)
            let value = generator.below(6)
            let model = models[index]
            switch generator.weightedIndex([6, 4, 4, 3, 3, 4, 5, 3, 2, 2, 3, 2, 2]) {
            case 0:
                model.write { $0.count += 1 }
                report.increments[index] += 1
            case 1:
                model.update {
                    var next = model.state
                    next.count += 1
                    return next
                }
                report.increments[index] += 1
            case 2:
                model.write { model.state.count += 1 }
                report.increments[index] += 1
            case 3:
                nestedWrite(model)
                report.increments[index] += 2
            case 4:
                try? model.write { () throws(Rollback) in
                    model.state.count += 1_000
                    model.state.setValue(-1)
                    throw Rollback()
                }
            case 5: model.write { $0.whole.setValue(value) }
            case 6: subscribe(slot)
            case 7: unsubscribe(slot)
            case 8:
                views[slot].token?.cancel()
                views[slot].isSubscribed = false
            case 9:
                report.dropped.append(WeakObject(name: "a dropped view", object: views[slot].probe.object))
                views[slot] = makeView()
            case 10: follow(other, form: [FollowForm.closure, .method, .projection][value % 3])
            case 11: unfollow(other)
            default:
                // Reads never wait for a transaction (V6), whatever the other threads do.
                _ = models[other].state
                _ = models[other].subscriberCount
            }
        }

        /// Two increments that join one transaction, around a nested one that rolls back.
        private func nestedWrite(_ model: PlainTally) {
            model.write {
                model.state.count += 1
                model.update {
                    var next = model.state
                    next.count += 1
                    return next
                }
                try? model.write { () throws(Rollback) in
                    model.state.count += 100
                    model.state.setValue(-2)
                    throw Rollback()
                }
            }
        }

        private mutating func makeView() -> OwnedView {
            nextViewID += 1
            let index = generator.below(ConcurrentRun.models)
            let model = models[index]
            let echoTarget = generator.chance(35) ? models[generator.below(ConcurrentRun.models)] : nil
            let bouncesBack = generator.chance(25)
            let bounces = bounces
            let probe: AnyProbe
            if generator.chance(30) {
                let view = ProbeView<Digest>(id: nextViewID, echoTarget: echoTarget) { [weak model] state in
                    if bouncesBack, state.stamp % 5 == 0, let model { bounces.bounce(model) }
                }
                probe = .digest(view)
            } else {
                let view = ProbeView<Tally>(id: nextViewID, echoTarget: echoTarget) { [weak model] state in
                    if bouncesBack, state.stamp % 5 == 0, let model { bounces.bounce(model) }
                }
                probe = .whole(view)
            }
            // Renders already under way on other threads may reach a view after it was unsubscribed, and a new
            // subscription may start on the state the last one ended on: only order and overlap are checked.
            probe.willSubscribe()
            probe.allowRepeatedStates()
            return OwnedView(probe: probe, model: index)
        }

        private mutating func subscribe(_ slot: Int) {
            views[slot].token = World.subscribe(views[slot].probe, to: models[views[slot].model])
            views[slot].isSubscribed = true
        }

        private mutating func unsubscribe(_ slot: Int) {
            switch views[slot].probe {
            case .whole(let view): models[views[slot].model].unsubscribe(view: view)
            case .digest: views[slot].token?.cancel()
            }
            views[slot].isSubscribed = false
        }

        private mutating func follow(_ publisher: Int, form: FollowForm) {
            guard let follower = report.follower else { return }
            _ = World.follow(models[follower], models[publisher], form: form)
            if form == .projection {
                report.projectionFollows[publisher, default: 0] += 1
            } else {
                report.wholeFollows.insert(publisher)
            }
        }

        private mutating func unfollow(_ publisher: Int) {
            guard let follower = report.follower else { return }
            models[follower].unsubscribe(from: models[publisher])
            report.wholeFollows.remove(publisher)
            report.projectionFollows[publisher] = nil
        }
    }
}
