#!/usr/bin/env bash
# Instruction counts per write of the core write paths, from valgrind's callgrind on a release build.
# Each path runs twice, with 10 000 and 20 000 writes; the difference divided by 10 000 cancels start-up.
# Usage, from the Benchmarks folder:  Scripts/callgrind.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product WritePathProbe > /dev/null
probe=.build/release/WritePathProbe
out=$(mktemp -d)

instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$probe" "$1" "$2" "$3" 2>&1 |
        awk '/Collected/ { print $4 }'
}

printf '| path | Sobreiro | Floor | OpenCombine | Sobreiro ÷ Floor |\n| --- | ---: | ---: | ---: | ---: |\n'
for path in write0 write1 dedup fanout100; do
    row="| $path"
    declare -A per=()
    for contender in Sobreiro Floor OpenCombine; do
        small=$(instructions "$contender" "$path" 10000)
        large=$(instructions "$contender" "$path" 20000)
        per[$contender]=$(((large - small) / 10000))
        row="$row | ${per[$contender]}"
    done
    ratio=$(awk -v a="${per[Sobreiro]}" -v b="${per[Floor]}" 'BEGIN { printf "%.2f×", a / b }')
    echo "$row | $ratio |"
done
rm -rf "$out"
