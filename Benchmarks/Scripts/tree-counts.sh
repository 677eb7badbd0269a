#!/usr/bin/env bash
# Instructions per operation (valgrind's callgrind) of the tree scenarios, on a release build of AdapterProbe: each
# runs twice, with n and 2n operations, and the difference divided by n cancels start-up. An operation of a route is
# two changes, to the second state and back (a push and a pop; a row replaced and restored); one of the 1c cycles is
# an attach + detach; one of the dependency scenarios is one read.
# Hashing is deterministic: with a seed drawn per process, the route's and the scope's tables collide differently in
# each run, and a push + pop moved by more than a thousand instructions between two runs of the same build.
# Usage, from the Benchmarks folder:  Scripts/tree-counts.sh   (a few minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product AdapterProbe > /dev/null
probe=.build/release/AdapterProbe
out=$(mktemp -d)

instructions() {
    rm -f "$out"/cg
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$probe" "$@" > /dev/null 2>&1
    awk '/^totals:/ { print $2 }' "$out/cg"
}

per_operation() {
    local small large
    small=$(instructions "$1" "$2" "$3")
    large=$(instructions "$1" "$2" $(($3 * 2)))
    echo $(((large - small) / $3))
}

printf '| probe | instructions/op |\n| --- | ---: |\n'
for scenario in cycle:empty-behavior:10000 cycle:empty-behavior-among-1000-siblings:10000 \
    route:stack-of-10-route:1000 route:stack-of-10-floor:1000 route:list-of-1000-route:50 \
    route:list-of-1000-floor:50 dependency:dependency:10000 dependency:stored:10000; do
    IFS=: read -r kind name count <<< "$scenario"
    printf '| %s %s | %s |\n' "$kind" "$name" "$(per_operation "$kind" "$name" "$count")"
done
rm -rf "$out"
