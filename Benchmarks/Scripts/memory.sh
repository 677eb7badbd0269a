#!/usr/bin/env bash
# Heap bytes and blocks per live subscription, from valgrind's count of what is in use at exit: the probe attaches
# 10 000 and then 20 000 renderers and exits while they are subscribed; the difference divided by 10 000 is what
# one subscription keeps: the renderer object itself (24 bytes for every contender but OpenCombine's closure), the
# subscription, the weak reference's side table where there is one, and its share of the contender's lists.
# Usage, from the Benchmarks folder:  Scripts/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product WritePathProbe > /dev/null
probe=.build/release/WritePathProbe

# Prints "<bytes> <blocks>" in use at exit with $2 live subscriptions of contender $1.
in_use() {
    SWIFT_DETERMINISTIC_HASHING=1 valgrind "$probe" "$1" live "$2" 2>&1 |
        awk '/in use at exit/ { gsub(",", ""); print $6, $9 }'
}

printf '| contender | bytes per subscription | heap blocks per subscription |\n| --- | ---: | ---: |\n'
for contender in Sobreiro WeakFloor Floor OpenCombine; do
    read -r small_bytes small_blocks <<< "$(in_use "$contender" 10000)"
    read -r large_bytes large_blocks <<< "$(in_use "$contender" 20000)"
    awk -v name="$contender" -v b=$((large_bytes - small_bytes)) -v n=$((large_blocks - small_blocks)) \
        'BEGIN { printf "| %s | %.1f | %.1f |\n", name, b / 10000, n / 10000 }'
done
