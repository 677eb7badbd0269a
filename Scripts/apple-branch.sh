#!/usr/bin/env bash
# Builds and tests the `#if canImport(Combine)` branches of ScopeKit and Sobreiro, the code that only Apple
# platforms compile, here on Linux: the nested package AppleBranch/ compiles their own sources against OpenCombine
# standing in for Combine (AppleBranch/Package.swift says how), then runs ScopeKit's tests and the branches' own tests
# (Sobreiro's state publisher among them) against that build.
# Builds in AppleBranch/.build, apart from the root package's build. Prints the Swift Testing summary, then the
# same count as a plain "apple-branch: N passed, N failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(uname -s)" = Darwin ]; then
    echo "apple-branch: not run on Darwin, where the root package compiles this branch against Apple's Combine"
    exit 0
fi

# One build with the tests, so that `swift test` below reuses it instead of building again with other flags.
swift build --package-path AppleBranch --build-tests -Xswiftc -warnings-as-errors

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --package-path AppleBranch --skip-build >"$log" 2>&1 || status=$?
grep -E '✘|error:' "$log" || true

summary=$(grep -E 'Test run with [0-9]+ tests?' "$log" | tail -n 1 || true)
if [ -z "$summary" ]; then
    tail -n 40 "$log"
    echo "apple-branch: swift test printed no summary"
    exit 1
fi
echo "$summary"
total=$(sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p' <<<"$summary")
failed=$(grep -cE '^✘ Test ".* failed after' "$log" || true)
echo "apple-branch: $((total - failed)) passed, $failed failed"
[ "$status" -eq 0 ] || { echo "apple-branch: swift test failed"; exit "$status"; }
