#!/usr/bin/env python3
"""Runs the tree benchmarks once and prints the table of the "The tree" section of BENCHMARKS.md.

Usage, from the Benchmarks folder:  python3 Scripts/tree.py [saved-output.txt]
Each row sets a scenario against its floor from the same run, so the ratio compares like with like on a noisy
machine.
"""

from benchmark_output import print_floor_table

# (label, scenario, floor label, floor scenario, operations per benchmark iteration)
ROWS = [
    ("1c attach+detach, empty `AnonymousBehavior` with 1 000 siblings",
     "tree attach+detach | empty-behavior-among-1000-siblings",
     "the same, alone", "tree attach+detach | empty-behavior", 1),
    ("S1 push + pop on a stack of 10, `hostChildren(following:)`", "tree route | stack-of-10 route",
     "the same writes, `host`/`evict` by hand", "tree route | stack-of-10 floor", 1),
    ("S2 one row of 1 000 replaced, `hostChildren(following:)`, per change", "tree route | list-of-1000 route",
     "the same writes, `host`/`evict` by hand", "tree route | list-of-1000 floor", 2),
    ("D1 `dependency(_:)`, 3 levels under its provider", "tree dependency read | dependency, 3 levels under its provider",
     "a stored property", "tree dependency read | stored property", 1),
]


def main():
    print_floor_table("TreeBenchmarks", ROWS)


if __name__ == "__main__":
    main()
