/// Drops the caller's reference to `object` and asserts that nothing else kept it alive.
///
/// Call it at the end of a test, on the view models, views and behaviors the test created, once it has detached
/// what it attached. A failure names the type that leaked, at this line.
///
/// ```swift
/// var model: ListViewModel? = ListViewModel()
/// // … the test …
/// expectDeallocated(&model)
/// ```
///
/// - Parameters:
///   - object: The only reference the test holds; it is `nil` afterwards.
///   - fileID: The caller's file ID, where a failure is reported; leave the default.
///   - filePath: The caller's file path, where a failure is reported; leave the default.
///   - line: The caller's line, where a failure is reported; leave the default.
///   - column: The caller's column, where a failure is reported; leave the default.
public func expectDeallocated<Object: AnyObject>(
    _ object: inout Object?,
    fileID: String = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    weak let survivor = object
    object = nil
    guard let survivor else { return }
    reportFailure(
        "\(type(of: survivor)) was not deallocated: something still holds it. Look for a closure that captures it "
            + "strongly outside a scoped activation, a subscription kept by a model that outlives it, a host that "
            + "still holds it, or a task that has not finished.",
        at: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
}
