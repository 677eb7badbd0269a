#!/usr/bin/env bash
# Instruction counts per write of the core write paths (chain10: per write at the head of a chain of 10 models;
# churn10: per subscribe + unsubscribe with 10 other subscribers), from valgrind's callgrind on a release build.
# Each path runs twice, with 10 000 and 20 000 writes; the difference divided by 10 000 cancels start-up.
# The second table writes a two-field state: `pair-whole` renders one view of the whole state, `pair-projected`
# one view of `map(\.value)`; the `-other` paths change only the other field, which the projection skips.
# "Sobreiro delivery" is the path minus `pair-write0` (the same write with no subscriber): the cost of one
# delivery, whether it renders or not.
# Usage, from the Benchmarks folder:  Scripts/callgrind.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product WritePathProbe > /dev/null
probe=.build/release/WritePathProbe
out=$(mktemp -d)

instructions() {
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$probe" "$1" "$2" "$3" 2>&1 |
        awk '/Collected/ { print $4 }'
}

# Instructions per write of contender $1 on path $2, from runs of $3 and twice $3 writes (10 000 unless given).
per_write() {
    local writes=${3:-10000} small large
    small=$(instructions "$1" "$2" "$writes")
    large=$(instructions "$1" "$2" $((writes * 2)))
    echo $(((large - small) / writes))
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }
printf '| path | Sobreiro | Weak floor | Floor | OpenCombine | Sobreiro ÷ Weak floor | Sobreiro ÷ Floor |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for path in write0 write1 dedup fanout100 chain10 churn10; do
    sobreiro=$(per_write Sobreiro "$path")
    weak=$(per_write WeakFloor "$path")
    floor=$(per_write Floor "$path")
    echo "| $path | $sobreiro | $weak | $floor | $(per_write OpenCombine "$path") | $(ratio "$sobreiro" "$weak") | $(ratio "$sobreiro" "$floor") |"
done

printf '\n| pair path | Sobreiro | OpenCombine | Sobreiro delivery |\n| --- | ---: | ---: | ---: |\n'
base=$(per_write Sobreiro pair-write0)
for path in pair-write0 pair-whole pair-projected pair-whole-other pair-projected-other; do
    if [ "$path" = pair-write0 ]; then sobreiro=$base; else sobreiro=$(per_write Sobreiro "$path"); fi
    echo "| $path | $sobreiro | $(per_write OpenCombine "$path") | $((sobreiro - base)) |"
done

# A state of N items with one view, each write changing one item: the floor copies the array once and compares it
# once per write, as Sobreiro must (V6, T6). Few writes for the largest state, where each costs about a million.
printf '\n| big state, per write | Sobreiro | Floor | Sobreiro ÷ Floor |\n| --- | ---: | ---: | ---: |\n'
for items in 10 1000 100000; do
    writes=$((items == 100000 ? 200 : 10000))
    sobreiro=$(per_write Sobreiro "big$items" "$writes")
    floor=$(per_write Floor "big$items" "$writes")
    echo "| $items items | $sobreiro | $floor | $(ratio "$sobreiro" "$floor") |"
done
rm -rf "$out"
