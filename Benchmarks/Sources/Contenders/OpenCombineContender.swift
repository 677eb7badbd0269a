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

/// `CurrentValueSubject<TwoFields>`: the whole state through `removeDuplicates().sink`, `value` alone through
/// `map(\.value).removeDuplicates().sink`.
public final class OpenCombineProjectingContender: ProjectingContender, @unchecked Sendable {
    public static let name = "OpenCombine"

    private let subject: CurrentValueSubject<TwoFields, Never>

    public init(value: Int, other: Int) {
        subject = CurrentValueSubject(TwoFields(value: Counter(value: value), other: other))
    }

    public func write(value: Int) {
        subject.value.value.value = value
    }

    public func write(other: Int) {
        subject.value.other = other
    }

    public func attachWholeState(_ sink: Sink) -> AnyObject {
        subject.removeDuplicates().sink { sink.render($0.value.value) }
    }

    public func attachValue(_ sink: Sink) -> AnyObject {
        subject.map(\.value).removeDuplicates().sink { sink.render($0.value) }
    }
}
