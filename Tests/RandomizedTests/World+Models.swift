import Sobreiro

/// Thrown to roll a transaction back.
struct Rollback: Error {}

extension World {
    func applyTransaction(_ operation: Operation) {
        switch operation {
        case .write(let slot, let value):
            let model = models[slot]
            model.write { model.state.setValue(value) }
            reference.models[slot].setValue(value)
        case .update(let slot, let value):
            let model = models[slot]
            model.update {
                var next = model.state
                next.setValue(value)
                return next
            }
            reference.models[slot].setValue(value)
        case .mutate(let slot, let delta):
            models[slot].write { $0.whole.setValue(max(0, $0.value + delta)) }
            reference.models[slot].setValue(max(0, reference.models[slot].value + delta))
        case .throwingWrite(let slot, let value):
            rollBack(models[slot], value: value)
        case .nestedWrite(let slot, let value):
            nestedWrite(models[slot], value: value)
            reference.nestedWrite(model: slot, value: value)
        case .recreateModel(let slot):
            let id = newID()
            mustBeGone.append(Watched(name: "model \(slot) (m\(modelIDs[slot])), recreated", object: models[slot]))
            models[slot] = PlainTally(slot: slot)
            modelIDs[slot] = id
            watch("model \(slot) (m\(id))", models[slot])
            reference.recreate(model: slot, id: id)
            for index in views.indices where views[index]?.model == nil && views[index]?.isSubscribed == true {
                views[index]?.isSubscribed = false
                views[index]?.probe.didUnsubscribe()
            }
        default:
            preconditionFailure("not a transaction: \(operation)")
        }
    }

    /// A transaction that assigns an uncommitted value, then throws: nobody may see it (T3).
    private func rollBack(_ model: PlainTally, value: Int) {
        let rendersBefore = totalRenders()
        let stateBefore = model.state
        do {
            try model.write { () throws(Rollback) in
                model.state.setValue(-1 - value)
                throw Rollback()
            }
            violation("rollback", "a throwing write did not rethrow")
        } catch {
            if model.state != stateBefore {
                violation("rollback", "a throwing write changed the state: \(stateBefore) → \(model.state)")
            }
        }
        if totalRenders() != rendersBefore {
            violation("rollback", "a throwing write rendered \(totalRenders() - rendersBefore) time(s)")
        }
    }

    /// Transactions nested in one another on one thread join the outer one (T5): an inner `update`, an inner
    /// `write { $0 … }`, and an inner write that throws and rolls back only its own changes. Subscribers see
    /// only what the outer transaction commits (T2), never the negative values assigned on the way.
    private func nestedWrite(_ model: PlainTally, value: Int) {
        model.write {
            model.state.setValue(-1)
            model.update {
                var next = model.state
                next.setValue(value)
                return next
            }
            do {
                try model.write { () throws(Rollback) in
                    model.state.setValue(-2)
                    throw Rollback()
                }
            } catch {}
            model.write { $0.whole.setValue($0.value + 1) }
        }
    }

    func totalRenders() -> Int {
        views.compactMap { $0?.probe.renders }.reduce(0, +)
    }

    func applyComposition(_ operation: Operation) {
        switch operation {
        case .follow(let followerSlot, let publisherSlot, let form):
            let token = Self.follow(models[followerSlot], models[publisherSlot], form: form)
            let id = newID()
            followTokens.append((id, token))
            if followTokens.count > 8 { followTokens.removeFirst() }
            reference.follow(follower: followerSlot, publisher: publisherSlot, form: form, token: id)
        case .unfollow(let followerSlot, let publisherSlot):
            models[followerSlot].unsubscribe(from: models[publisherSlot])
            reference.unfollow(follower: followerSlot, publisher: publisherSlot)
        case .cancelFollowToken(let index):
            guard !followTokens.isEmpty else { return }
            let (id, token) = followTokens[index % followTokens.count]
            token.cancel()
            reference.cancelFollow(token: id)
        default:
            preconditionFailure("not a composition: \(operation)")
        }
    }

    /// Nonisolated, so that Swift picks the overloads that deliver on the writer's thread, not the main-actor
    /// ones.
    nonisolated static func follow(
        _ follower: PlainTally,
        _ publisher: PlainTally,
        form: FollowForm
    ) -> StateSubscription {
        switch form {
        case .closure:
            follower.subscribe(to: publisher) { [weak follower] state in
                follower?.write { $0.whole.set(\.mirrors, state.slot, to: state.value) }
            }
        case .method:
            follower.subscribe(to: publisher, onChange: PlainTally.publisherDidChange)
        case .projection:
            follower.subscribe(to: publisher.map(\.remainder), onChange: PlainTally.remainderDidChange)
        }
    }
}
