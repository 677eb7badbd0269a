#!/usr/bin/env bash
# Instructions (valgrind's callgrind) and heap allocations (valgrind's memcheck) per operation of the adapter
# scenarios, on a release build of AdapterProbe. Each scenario runs twice, with 10 000 and 20 000 operations; the
# difference divided by 10 000 cancels start-up. An operation is one attach + detach cycle, one write, or one
# ping-pong round (two delivered values).
# The cycles that start an effect's operation or a task count the main thread's instructions only: the task's own
# work is left out. The ping-pong rounds switch threads, which valgrind serialises: their instruction counts include
# the scheduling and move by a few hundred from run to run, and how many allocations AsyncStream makes depends on
# how memcheck interleaves the two tasks, so the table leaves the ping-pong allocations to the benchmark's counts.
# Hashing is deterministic, so that tables keyed by identity collide the same way in every run.
# Usage, from the Benchmarks folder:  Scripts/adapter-counts.sh   (about ten minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product AdapterProbe > /dev/null
probe=.build/release/AdapterProbe
out=$(mktemp -d)

# Instructions of the main thread, which runs the cycles and the writes: the effect scenarios start tasks that
# valgrind runs on other threads at moments that vary from run to run. The ping-pong rounds run on other threads,
# so for them every thread counts.
instructions() {
    rm -f "$out"/cg*
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg" "$probe" "$@" > /dev/null 2>&1
    if [ "$1" = ping-pong ]; then
        cat "$out"/cg-* | awk '/^totals:/ { total += $2 } END { print total }'
    else
        awk '/^totals:/ { print $2 }' "$out/cg-01"
    fi
}

allocations() {
    SWIFT_DETERMINISTIC_HASHING=1 valgrind "$probe" "$@" 2>&1 | awk '/total heap usage/ { gsub(",", "", $5); print $5 }'
}

# Per-operation difference of counter $1 for scenario $2 $3, to a tenth: threads that valgrind schedules
# differently from run to run move an allocation count by one or two, a few ten-thousandths per operation.
per_operation() {
    local small large
    small=$("$1" "$2" "$3" 10000)
    large=$("$1" "$2" "$3" 20000)
    awk -v a="$small" -v b="$large" 'BEGIN {
        x = (b - a) / 10000
        r = int(x * 10 + (x < 0 ? -0.5 : 0.5)) / 10
        printf "%g", r == 0 ? 0 : r
    }'
}

printf '| probe | instructions/op | allocations/op |\n| --- | ---: | ---: |\n'
for scenario in cycle:empty-behavior cycle:empty-behavior-among-1000-siblings cycle:bound-idle cycle:bound-follower \
    cycle:plain-follower cycle:bound-main-actor-follower cycle:bound-idle-effect cycle:bound-idle-effect-among-1000 \
    cycle:bound-effect cycle:plain-task write:bound write:bound-idle-effect write:unbound write:unbound-2-views \
    ping-pong:StateSequence ping-pong:AsyncStream; do
    kind=${scenario%%:*}
    name=${scenario#*:}
    allocations_per_operation=n/a
    if [ "$kind" != ping-pong ]; then
        allocations_per_operation=$(per_operation allocations "$kind" "$name")
    fi
    printf '| %s %s | %.0f | %s |\n' "$kind" "$name" "$(per_operation instructions "$kind" "$name")" \
        "$allocations_per_operation"
done
rm -rf "$out"
