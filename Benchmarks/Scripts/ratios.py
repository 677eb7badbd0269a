#!/usr/bin/env python3
"""Runs the core benchmarks once and prints the table of ratios that BENCHMARKS.md reports.

Usage, from the Benchmarks folder:  python3 Scripts/ratios.py [saved-output.txt]
Every number in one table comes from one run, so the ratios compare like with like on a noisy machine.
"""
import sys

from benchmark_output import parse, run

CONTENDERS = ["Sobreiro", "Weak floor", "Floor", "OpenCombine", "Observation"]


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else run("CoreBenchmarks|ScopeKitBenchmarks")
    results = parse(text)
    scenarios = sorted({name.split(" | ")[0] for name in results if " | " in name})

    def ns(scenario, contender):
        return results.get(f"{scenario} | {contender}", {}).get("ns")

    def mallocs(scenario, contender):
        return results.get(f"{scenario} | {contender}", {}).get("mallocs")

    def ratio(a, b):
        return f"{a / b:.2f}×" if a is not None and b else "n/a"

    print("| scenario | Sobreiro ns/op | Weak floor ns/op | Floor ns/op | OpenCombine ns/op | Observation ns/op "
          "| Sobreiro ÷ Weak floor | Sobreiro ÷ Floor | OpenCombine ÷ Sobreiro | Observation ÷ Sobreiro "
          "| Sobreiro mallocs/op | Weak floor mallocs/op |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for scenario in scenarios:
        values = [ns(scenario, contender) for contender in CONTENDERS]
        cells = [f"{value:.0f}" if value is not None else "n/a" for value in values]
        sob, weak, floor, combine, observation = values
        counts = [mallocs(scenario, contender) for contender in ["Sobreiro", "Weak floor"]]
        count_cells = [f"{count:.0f}" if count is not None else "n/a" for count in counts]
        print(f"| {scenario} | " + " | ".join(cells) +
              f" | {ratio(sob, weak)} | {ratio(sob, floor)} | {ratio(combine, sob)} | {ratio(observation, sob)} "
              f"| " + " | ".join(count_cells) + " |")

    print()
    fan, one = "3 write, 100 renders", "2 write, 1 render"
    extra = {}
    for contender in ["Sobreiro", "Weak floor", "Floor"]:
        if ns(fan, contender) is None or ns(one, contender) is None:
            continue
        extra[contender] = (ns(fan, contender) - ns(one, contender)) / 99
        print(f"- cost per extra subscriber, {contender}: {extra[contender]:.1f} ns")
    for floor in ["Weak floor", "Floor"]:
        print(f"- per-extra-subscriber ratio, Sobreiro ÷ {floor}: {ratio(extra.get('Sobreiro'), extra.get(floor))}")
    for contender in ["Sobreiro", "Weak floor", "Floor", "OpenCombine"]:
        small, large = ns("7 subscribe+unsubscribe at 10", contender), ns("7 subscribe+unsubscribe at 10000", contender)
        print(f"- churn at 10 000 ÷ churn at 10, {contender}: {ratio(large, small)}")
    projection_pairs = [("write value, 1 render", "8a projection, write value, 1 render",
                         "8b whole state, write value, 1 render"),
                        ("write other field", "9a projection, write other field, 0 renders",
                         "9b whole state, write other field, 1 render")]
    for label, projected, whole in projection_pairs:
        for contender in ["Sobreiro", "OpenCombine"]:
            a, b = ns(projected, contender), ns(whole, contender)
            if a is not None and b is not None:
                print(f"- projection ÷ whole state, {label}, {contender}: {a:.0f} ns vs {b:.0f} ns, {ratio(a, b)}")
    for name in sorted(results):
        if " | " not in name:
            print(f"- {name}: {results[name].get('ns', 0):.0f} ns per round, "
                  f"{results[name].get('mallocs', 0):.0f} mallocs per round")


if __name__ == "__main__":
    main()
