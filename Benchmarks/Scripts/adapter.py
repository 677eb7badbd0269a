#!/usr/bin/env python3
"""Runs the adapter benchmarks once and prints the table of the "Adapter" section of BENCHMARKS.md.

Usage, from the Benchmarks folder:  python3 Scripts/adapter.py [saved-output.txt]
Each row sets a SobreiroScopeKit scenario against its floor from the same run, so the ratio compares like with like
on a noisy machine.
"""
import sys

from benchmark_output import parse, run

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
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else run("AdapterBenchmarks")
    results = parse(text)
    print("| scenario | ns/op | mallocs/op | floor | floor ns/op | floor mallocs/op | ÷ floor |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
    for label, name, floor_label, floor_name, per in ROWS:
        if name not in results or floor_name not in results:
            print(f"| {label} | missing | | {floor_label} | | | |")
            continue
        a, b = results[name], results[floor_name]
        ns, floor_ns = a["ns"] / per, b["ns"] / per
        mallocs, floor_mallocs = a["mallocs"] / per, b["mallocs"] / per
        print(f"| {label} | {ns:.0f} | {mallocs:g} | {floor_label} | {floor_ns:.0f} | {floor_mallocs:g} "
              f"| {ns / floor_ns:.2f}× |")


if __name__ == "__main__":
    main()
