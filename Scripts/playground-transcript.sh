#!/usr/bin/env bash
# Checks the Playground against its committed transcript: the scripted session must print exactly
# Tests/PlaygroundTranscript/scripted.txt, on every run, and exit 0 within 10 seconds. Also checks the command
# line: --help exits 0, an unknown argument exits 2 with the usage on stderr, --interactive without a terminal
# falls back to the same scripted output, and --trace adds only indented trace lines to it.
#
# Usage: Scripts/playground-transcript.sh [path/to/Playground]
#   Without a path it runs `swift run --quiet Playground`, which builds it first.
# After changing what the Playground prints on purpose, regenerate the transcript and review the diff:
#   swift run --quiet Playground > Tests/PlaygroundTranscript/scripted.txt
set -euo pipefail
cd "$(dirname "$0")/.."

transcript=Tests/PlaygroundTranscript/scripted.txt
if [ $# -gt 0 ]; then
    playground=("$1")
else
    swift build --quiet --product Playground
    playground=(swift run --quiet --skip-build Playground)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
    echo "playground-transcript: $*" >&2
    failures=$((failures + 1))
}

# Runs the Playground with the given arguments and no terminal on stdin; sets $status.
run() {
    local name=$1
    shift
    status=0
    if command -v timeout >/dev/null; then
        timeout 10 "${playground[@]}" "$@" </dev/null >"$work/$name.out" 2>"$work/$name.err" || status=$?
    else
        "${playground[@]}" "$@" </dev/null >"$work/$name.out" 2>"$work/$name.err" || status=$?
    fi
}

run scripted
if [ "$status" -ne 0 ]; then
    fail "the scripted session exited $status (124 means it ran for more than 10 seconds)"
    cat "$work/scripted.err" >&2
fi
if ! diff -u "$transcript" "$work/scripted.out" >"$work/scripted.diff"; then
    fail "the scripted session differs from $transcript (--- expected, +++ actual):"
    cat "$work/scripted.diff" >&2
fi

run help --help
[ "$status" -eq 0 ] || fail "--help exited $status, expected 0"
grep -q '^Usage:' "$work/help.out" || fail "--help printed no usage on stdout"

run bogus --bogus
[ "$status" -eq 2 ] || fail "--bogus exited $status, expected 2"
grep -q '^Usage:' "$work/bogus.err" || fail "--bogus printed no usage on stderr"
[ ! -s "$work/bogus.out" ] || fail "--bogus printed to stdout; the usage belongs on stderr"

run interactive --interactive
[ "$status" -eq 0 ] || fail "--interactive without a terminal exited $status, expected 0"
grep -q 'not a terminal' "$work/interactive.err" || fail "--interactive without a terminal did not say so"
cmp -s "$transcript" "$work/interactive.out" ||
    fail "--interactive without a terminal did not play the scripted session"

run trace --trace
[ "$status" -eq 0 ] || fail "--trace exited $status, expected 0"
grep -q '^    │ ' "$work/trace.out" || fail "--trace printed no trace lines"
grep -v '^    │ ' "$work/trace.out" | cmp -s "$transcript" - ||
    fail "--trace changed more than the indented trace lines"

if [ "$failures" -ne 0 ]; then
    echo "playground-transcript: $failures check(s) failed" >&2
    exit 1
fi
echo "playground-transcript: the scripted session matches $transcript; --help, --bogus, --interactive and --trace behave"
