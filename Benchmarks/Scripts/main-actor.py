#!/usr/bin/env python3
"""Runs the main-actor benchmarks once and prints their table: Sobreiro against the main queue floor.

Usage, from the Benchmarks folder:  python3 Scripts/main-actor.py [saved-output.txt]
Both contenders of a row come from one run, so the ratio compares like with like on a noisy machine.
M1 is per write (one hop to the main actor); M2 is per burst of 1000 writes.
"""
import sys

from benchmark_output import parse, run

SCENARIOS = ["M1 background write, main-actor render", "M2 burst of 1000 background writes"]
SOBREIRO, FLOOR = "Sobreiro", "Main queue floor"


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else run("MainActorBenchmarks")
    results = parse(text)

    def cell(scenario, contender, key, digits=0):
        value = results.get(f"{scenario} | {contender}", {}).get(key)
        return "n/a" if value is None else f"{value:.{digits}f}"

    print("| scenario | Sobreiro ns/op | floor ns/op | Sobreiro ÷ floor | Sobreiro renders per burst "
          "| floor renders per burst | Sobreiro mallocs/op | floor mallocs/op |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for scenario in SCENARIOS:
        sobreiro = results.get(f"{scenario} | {SOBREIRO}", {}).get("ns")
        floor = results.get(f"{scenario} | {FLOOR}", {}).get("ns")
        ratio = f"{sobreiro / floor:.2f}×" if sobreiro is not None and floor else "n/a"
        print(f"| {scenario} | {cell(scenario, SOBREIRO, 'ns')} | {cell(scenario, FLOOR, 'ns')} | {ratio} "
              f"| {cell(scenario, SOBREIRO, 'renders')} | {cell(scenario, FLOOR, 'renders')} "
              f"| {cell(scenario, SOBREIRO, 'mallocs', 1)} | {cell(scenario, FLOOR, 'mallocs', 1)} |")


if __name__ == "__main__":
    main()
