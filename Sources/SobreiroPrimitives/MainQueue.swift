import Dispatch

/// Tells whether the calling code runs on the main dispatch queue, the home of the main actor.
@usableFromInline
package enum MainQueue {
    private static let key: DispatchSpecificKey<Void> = {
        let key = DispatchSpecificKey<Void>()
        DispatchQueue.main.setSpecific(key: key, value: ())
        return key
    }()

    @usableFromInline
    package static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) != nil
    }
}
