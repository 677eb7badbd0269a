#!/usr/bin/env bash
# Compile-fail tests: typechecks every snippet in Tests/CompileFail against the modules of the debug build, in
# the compiler's -verify mode. Each snippet marks the diagnostics it must produce with `// expected-error {{…}}`
# and `// expected-note {{…}}`; a snippet fails if one of them is missing or if any other diagnostic appears in
# it. Accepted.swift has no expectations, so it must typecheck cleanly.
#
# Expects `swift build` (debug) to have run: it checks the built modules and does not build them.
# Set COMPILE_FAIL_MODULES to a Modules directory to use another build.
set -euo pipefail
cd "$(dirname "$0")/.."

snippets_dir=Tests/CompileFail

modules=${COMPILE_FAIL_MODULES:-}
if [ -z "$modules" ]; then
    bin_path=$(swift build --show-bin-path 2>/dev/null || true)
    modules=${bin_path:+$bin_path/Modules}
fi
if [ -z "$modules" ] || [ ! -e "$modules/Sobreiro.swiftmodule" ]; then
    echo "compile-fail: no Sobreiro.swiftmodule in '${modules:-the debug build}'; run \`swift build\` first" >&2
    exit 1
fi

shopt -s nullglob
snippets=("$snippets_dir"/*.swift)
if [ ${#snippets[@]} -eq 0 ]; then
    echo "compile-fail: no snippets in $snippets_dir" >&2
    exit 1
fi

# -verify-ignore-unrelated: a note may point into Sobreiro's own sources (or its generated interface), such as
# "calls to instance method … are implicitly asynchronous"; only the snippet's own diagnostics are checked.
# The verifier matches each expectation as a substring of the message, without the "[#Group]" tag.
# A snippet whose header says "Without Combine only" checks ScopeKit's own AnyCancellable, which platforms with
# Combine (Darwin) do not compile.
failed=0
for snippet in "${snippets[@]}"; do
    if [ "$(uname -s)" = Darwin ] && head -n 5 "$snippet" | grep -q '^// Without Combine only'; then
        echo "compile-fail: $snippet skipped: Combine's AnyCancellable is in use here"
        continue
    fi
    # Ownership errors (a noncopyable value consumed) come from SIL, after type checking: such a snippet says so.
    stage=(-typecheck)
    if head -n 5 "$snippet" | grep -q '^// Checked through SIL'; then stage=(-emit-sil -o /dev/null); fi
    if output=$(swiftc "${stage[@]}" -swift-version 6 -I "$modules" \
        -Xfrontend -verify -Xfrontend -verify-ignore-unrelated "$snippet" 2>&1); then
        echo "compile-fail: $snippet ok"
    else
        echo "compile-fail: $snippet FAILED"
        printf '%s\n' "$output"
        failed=$((failed + 1))
    fi
done

if [ "$failed" -ne 0 ]; then
    echo "compile-fail: $failed of ${#snippets[@]} snippets failed"
    exit 1
fi
echo "compile-fail: ${#snippets[@]} snippets verified"
