import Sobreiro

/// Two tasks that hand a counter back and forth: the producer sends a value and waits for the consumer to send
/// it back. Each round delivers two values, one in each direction, and each is consumed before the next is sent,
/// so a channel that keeps only its newest value never drops one.
public protocol PingPong: AnyObject, SendableMetatype {
    static var name: String { get }

    /// Starts the consumer and plays one round, so that the rounds that follow are all alike.
    init() async

    /// Plays `rounds` rounds, each with a value never sent before.
    func play(rounds: Int) async

    /// Ends the consumer and waits for it.
    func finish() async
}

/// The channel under test: `ViewModel.states`. The producer writes `ping`; the consumer iterates `ping.states`
/// and writes each value into `pong`; the producer iterates `pong.states`.
public final class StateSequencePingPong: PingPong {
    public static let name = "StateSequence"

    private let ping = ViewModel(initialState: Reading())
    private let pong = ViewModel(initialState: Reading())
    private let consumer: Task<Void, Never>
    private var replies: StateSequence<Reading>.Iterator
    private var sent = 0

    public init() async {
        let ping = ping
        let pong = pong
        consumer = Task {
            for await state in ping.states {
                pong.write { $0.value = state.value }
            }
        }
        replies = pong.states.makeAsyncIterator()
        let initial = await replies.next()
        precondition(initial?.value == 0)
        await play(rounds: 1)
    }

    public func play(rounds: Int) async {
        for _ in 0..<rounds {
            sent += 1
            let value = sent
            ping.write { $0.value = value }
            let reply = await replies.next()
            precondition(reply?.value == value, "expected \(value), got \(String(describing: reply))")
        }
    }

    public func finish() async {
        consumer.cancel()
        await consumer.value
    }
}

/// The floor: two `AsyncStream<Int>`s that buffer only their newest element, played the same way.
public final class AsyncStreamPingPong: PingPong {
    public static let name = "AsyncStream"

    private let pings: AsyncStream<Int>.Continuation
    private let consumer: Task<Void, Never>
    private var replies: AsyncStream<Int>.Iterator
    private var sent = 0

    public init() async {
        let (pingStream, pings) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (pongStream, pongs) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.pings = pings
        consumer = Task {
            for await value in pingStream {
                pongs.yield(value)
            }
            pongs.finish()
        }
        replies = pongStream.makeAsyncIterator()
        await play(rounds: 1)
    }

    public func play(rounds: Int) async {
        for _ in 0..<rounds {
            sent += 1
            pings.yield(sent)
            let reply = await replies.next()
            precondition(reply == sent, "expected \(sent), got \(String(describing: reply))")
        }
    }

    public func finish() async {
        pings.finish()
        await consumer.value
    }
}
