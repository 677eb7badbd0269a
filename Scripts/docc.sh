#!/usr/bin/env bash
# Builds the DocC catalog of every library module with the toolchain's own docc, from symbol graphs that
# `swift build` emits, and fails on any warning (a broken link, an undocumented topic).
# Usage: Scripts/docc.sh [output-folder]   (default .build-docs/site)
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
graphs=$scratch/symbol-graphs
output=${1:-$scratch/site}
docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"

# A clean build of the libraries, so that every module emits its graphs again.
rm -rf "$scratch"
mkdir -p "$graphs" "$output"
swift build --scratch-path "$scratch" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
    -Xswiftc -emit-extension-block-symbols >/dev/null

status=0
for module in Sobreiro ScopeKit SobreiroScopeKit SobreiroTesting SobreiroObservation; do
    # Each catalog gets its own module's graphs: the module itself and its extensions of other modules.
    module_graphs=$(mktemp -d)
    cp "$graphs/$module.symbols.json" "$module_graphs/"
    cp "$graphs/$module"@*.symbols.json "$module_graphs/" 2>/dev/null || true
    if log=$("$docc" convert "Sources/$module/Documentation.docc" \
        --additional-symbol-graph-dir "$module_graphs" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.sobreiro.$module" \
        --output-path "$output/$module.doccarchive" \
        --warnings-as-errors 2>&1); then
        echo "docc: $module ok"
    else
        echo "docc: $module FAILED"
        printf '%s\n' "$log"
        status=1
    fi
    rm -rf "$module_graphs"
done
exit "$status"
