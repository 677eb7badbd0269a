/// One run of an effect operation's body, as a test clock that it sleeps on sees it: the activity that counts it,
/// and its number there.
///
/// The body runs with its operation in ``current``, and every child task it starts inherits it, so a sleep in any
/// of them parks the same operation. The operation is parked while any of its sleeps lasts, and counts once: two
/// children asleep at once must not pass for two parked operations, or the second would hide another operation
/// that runs.
package struct EffectOperation: Sendable {
    /// The operation whose body runs in the current task, or in a task that started it, if any.
    @TaskLocal package static var current: EffectOperation?

    /// The activity that counts the operation.
    package let activity: EffectActivity
    /// The number the activity gave the operation.
    let number: Int

    /// The operation, or one of its child tasks, starts a wait for `wait`, which a test drives.
    package func park(on wait: EffectWait) { activity.park(number, on: wait) }

    /// A wait that ``park(on:)`` counted has ended.
    package func unpark(on wait: EffectWait) { activity.unpark(number, on: wait) }
}
