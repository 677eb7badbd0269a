#!/usr/bin/env python3
"""Runs the adapter benchmarks once and prints the table of the "Adapter" section of BENCHMARKS.md.

Usage, from the Benchmarks folder:  python3 Scripts/adapter.py [saved-output.txt]
Each row sets a SobreiroScopeKit scenario against its floor from the same run, so the ratio compares like with like
on a noisy machine.
"""

from benchmark_output import print_floor_table

# (label, scenario, floor label, floor scenario, operations per benchmark iteration)
ROWS = [
    ("1 attach+detach, bound model, 1 scoped subscription", "adapter attach+detach | bound-follower",
     "`AnonymousBehavior` storing the same subscription", "adapter attach+detach | plain-follower", 1),
    ("1a attach+detach, bound model, empty `didBecomeActive`", "adapter attach+detach | bound-idle",
     "empty `AnonymousBehavior`", "adapter attach+detach | empty-behavior", 1),
    ("1b attach+detach, bound `@MainActor` model, 1 scoped subscription (main-actor relay)",
     "adapter attach+detach | bound-main-actor-follower",
     "the same, not isolated (1)", "adapter attach+detach | bound-follower", 1),
    ("1c attach+detach, empty `AnonymousBehavior` with 1 000 siblings",
     "adapter attach+detach | empty-behavior-among-1000-siblings",
     "empty `AnonymousBehavior`", "adapter attach+detach | empty-behavior", 1),
    ("2a attach+detach, bound model, effect subscribed, not running", "adapter attach+detach | bound-idle-effect",
     "bound model, empty `didBecomeActive` (1a)", "adapter attach+detach | bound-idle", 1),
    ("2b attach+detach, bound model, effect started and cancelled", "adapter attach+detach | bound-effect",
     "`AnonymousBehavior` starting and cancelling a `Task`", "adapter attach+detach | plain-task", 1),
    ("2c attach+detach, as 2a, while 1 000 other bound models with an effect are active",
     "adapter attach+detach | bound-idle-effect-among-1000", "2a", "adapter attach+detach | bound-idle-effect", 1),
    ("3 state sequence, per delivered state (ping-pong)", "adapter ping-pong round | StateSequence",
     "`AsyncStream`, `.bufferingNewest(1)`", "adapter ping-pong round | AsyncStream", 2),
    ("4 write, bound active model, 1 view", "adapter write, 1 view | bound",
     "unbound model, 1 view", "adapter write, 1 view | unbound", 1),
    ("4a write, bound active model, 1 view, effect subscribed, not running",
     "adapter write, 1 view | bound-idle-effect", "unbound model, 1 view", "adapter write, 1 view | unbound", 1),
    ("4b write, unbound model, 2 views", "adapter write, 1 view | unbound-2-views",
     "unbound model, 1 view", "adapter write, 1 view | unbound", 1),
]


def main():
    print_floor_table("AdapterBenchmarks", ROWS)


if __name__ == "__main__":
    main()
