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

    /// The operation, or one of its child tasks, starts a wait that a test drives, such as a sleep on a test clock.
    package func park() { activity.park(number) }

    /// A wait that ``park()`` counted has ended.
    package func unpark() { activity.unpark(number) }
}
