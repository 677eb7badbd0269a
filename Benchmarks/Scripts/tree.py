#!/usr/bin/env python3
"""Runs the tree benchmarks once and prints the table of the "The tree" section of BENCHMARKS.md.

Usage, from the Benchmarks folder:  python3 Scripts/tree.py [saved-output.txt]
Each row sets a scenario against its floor from the same run, so the ratio compares like with like on a noisy
machine.
"""
import sys

from benchmark_output import parse, run

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
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else run("TreeBenchmarks")
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
