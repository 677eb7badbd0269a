import Dispatch
import Sobreiro
import Testing

private let writerQueueKey = DispatchSpecificKey<Int>()

@MainActor
final class MainLabel: MainActorStatefulView {
    var rendered: [Counter] = []
    var rendersOnWriterQueue = 0

    func render(state: Counter) {
        if DispatchQueue.getSpecific(key: writerQueueKey) != nil { rendersOnWriterQueue += 1 }
        rendered.append(state)
    }
}

/// Runs `writers` blocks of `writes` increments each on a concurrent queue that renders can recognise, and
/// suspends until they have returned: its workers may be the threads of the pool, so none of them waits here.
private func writeConcurrently(to model: CounterModel, writers: Int, writes: Int) async {
    let queue = DispatchQueue(label: "writers", attributes: .concurrent)
    queue.setSpecific(key: writerQueueKey, value: 1)
    let group = DispatchGroup()
    for _ in 0..<writers {
        queue.async(group: group) {
            for _ in 0..<writes { model.increment() }
        }
    }
    await withCheckedContinuation { continuation in
        group.notify(queue: queue) { continuation.resume() }
    }
}

@Suite("Main-actor views")
@MainActor
struct MainActorViewTests {
    @Test("V4: subscribing from the main actor renders the current state before it returns")
    func subscribeRendersAtOnce() {
        let model = CounterModel(count: 2)
        let label = MainLabel()
        model.subscribe(view: label)
        #expect(label.rendered == [Counter(count: 2)])
        model.subscribe(view: label)
        #expect(label.rendered == [Counter(count: 2)])
    }

    @Test("V4: background writers reach a main-actor view on the main actor, ending on the latest state")
    func backgroundWritersEndOnLatest() async {
        let model = CounterModel()
        let label = MainLabel()
        model.subscribe(view: label)
        await Task.detached { await writeConcurrently(to: model, writers: 4, writes: 2_000) }.value
        for _ in 0..<10_000 where label.rendered.last != model.state {
            await Task.yield()
        }
        #expect(label.rendered.last == Counter(count: 8_000))
        #expect(isStrictlyIncreasing(label.rendered.map(\.count)))
        #expect(label.rendersOnWriterQueue == 0, "renders must hop to the main actor, not run on the writer")
        #expect(label.rendered.count < 8_001, "renders scheduled while others are pending are coalesced")
    }

    @Test("V4: an unsubscribed main-actor view gets no scheduled render")
    func unsubscribeDropsScheduledRender() async {
        let model = CounterModel()
        let label = MainLabel()
        model.subscribe(view: label)
        model.unsubscribe(view: label)
        await Task.detached { model.increment() }.value
        for _ in 0..<100 { await Task.yield() }
        #expect(label.rendered == [Counter()])
        #expect(model.subscriberCount == 0)
    }

    @Test("V4: a main-actor view that is released is not kept alive by a scheduled render")
    func releasedViewIsNotRetained() async {
        let model = CounterModel()
        weak var weakLabel: MainLabel?
        do {
            let label = MainLabel()
            weakLabel = label
            model.subscribe(view: label)
            await Task.detached { model.increment() }.value
        }
        #expect(weakLabel == nil)
        for _ in 0..<100 { await Task.yield() }
        #expect(model.subscriberCount == 0)
    }
}
