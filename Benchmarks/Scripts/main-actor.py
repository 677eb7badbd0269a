#!/usr/bin/env python3
"""Runs the main-actor benchmarks once and prints their table: Sobreiro against the main queue floor.

Usage, from the Benchmarks folder:  python3 Scripts/main-actor.py [saved-output.txt]
Both contenders of a row come from one run, so the ratio compares like with like on a noisy machine.
M1 is per write (one hop to the main actor); M2 is per burst of 1000 writes.
"""
import re
import subprocess
import sys

SCENARIOS = ["M1 background write, main-actor render", "M2 burst of 1000 background writes"]
SOBREIRO, FLOOR = "Sobreiro", "Main queue floor"
# The factor a unit in a metric's label stands for, e.g. "Malloc (total) (K) *" counts thousands.
UNITS = {"#": 1, "K": 1e3, "M": 1e6, "G": 1e9, "ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
METRICS = {"Time (wall clock)": "ns", "Malloc (total)": "mallocs", "renders per burst": "renders"}


def run_benchmarks():
    command = ["swift", "package", "benchmark", "--target", "MainActorBenchmarks", "--time-units", "nanoseconds",
               "--no-progress"]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def parse(text):
    """Maps benchmark name -> {'ns', 'mallocs', 'renders'}: the medians (p50) of its metrics."""
    results, name = {}, None
    lines = [line.strip() for line in text.splitlines()]
    for index, line in enumerate(lines):
        if index + 1 < len(lines) and lines[index + 1].startswith("╒"):
            name = line
            results[name] = {}
            continue
        cells = [cell.strip() for cell in line.strip("│").split("│")]
        if name is None or len(cells) < 4:
            continue
        label = cells[0].removesuffix("*").strip()
        unit = re.search(r" \(([^()]+)\)$", label)
        factor = 1
        if unit and unit.group(1) in UNITS:
            factor = UNITS[unit.group(1)]
            label = label[: unit.start()]
        if label in METRICS:
            results[name][METRICS[label]] = float(cells[3]) * factor
    return results


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else run_benchmarks()
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
