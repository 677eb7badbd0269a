"""Runs a package-benchmark target and reads its console output; shared by the scripts beside it."""
import re
import subprocess
import sys

# The factor a unit in a metric's label stands for, e.g. "Malloc (total) (K) *" counts thousands.
UNITS = {"#": 1, "K": 1e3, "M": 1e6, "G": 1e9, "ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
METRICS = {"Time (wall clock)": "ns", "Malloc (total)": "mallocs", "renders per burst": "renders"}


def run(target):
    """The console output of one run of `target` (a name, or several joined with "|"), times in nanoseconds."""
    command = ["swift", "package", "benchmark", "--target", target, "--time-units", "nanoseconds", "--no-progress"]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def parse(text):
    """Maps benchmark name -> {'ns', 'mallocs', 'renders'}: the medians (p50) of the metrics it reports, in units.

    A benchmark's name is the line just above its table.
    """
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


def print_floor_table(target, rows):
    """Prints, from a saved run named on the command line or from a new run of `target`, one table row per
    `(label, name, floor label, floor name, operations per iteration)`: each scenario beside its floor from the
    same run, and their ratio."""
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else run(target)
    results = parse(text)
    print("| scenario | ns/op | mallocs/op | floor | floor ns/op | floor mallocs/op | ÷ floor |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
    for label, name, floor_label, floor_name, per in rows:
        if name not in results or floor_name not in results:
            print(f"| {label} | missing | | {floor_label} | | | |")
            continue
        a, b = results[name], results[floor_name]
        ns, floor_ns = a["ns"] / per, b["ns"] / per
        mallocs, floor_mallocs = a["mallocs"] / per, b["mallocs"] / per
        print(f"| {label} | {ns:.0f} | {mallocs:g} | {floor_label} | {floor_ns:.0f} | {floor_mallocs:g} "
              f"| {ns / floor_ns:.2f}× |")
