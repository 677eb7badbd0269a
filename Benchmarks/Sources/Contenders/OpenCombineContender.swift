import OpenCombine

/// `CurrentValueSubject` + `removeDuplicates()` + `sink`, the usual Combine pipeline.
public final class OpenCombineContender: Contender, @unchecked Sendable {
    public static let name = "OpenCombine"
    public static func supports(_ scenario: Scenario) -> Bool { true }

    private let subject: CurrentValueSubject<Int, Never>

    public init(value: Int) {
        subject = CurrentValueSubject(value)
    }

    public func write(_ value: Int) {
        subject.send(value)
    }

    public func attach(_ sink: Sink) -> AnyObject {
        subject.removeDuplicates().sink { sink.render($0) }
    }

    public func detach(_ handle: AnyObject) {
        (handle as! AnyCancellable).cancel()
    }

    public func chain(to next: OpenCombineContender) -> AnyObject {
        subject.removeDuplicates().sink { [unowned next] in next.write($0) }
    }
}
