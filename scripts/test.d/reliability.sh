#!/usr/bin/env bash
# Bad-input matrix: the main test stage ran it (CTest reliability_bad_inputs) and left its results;
# this stage regenerates docs/reliability.md from them and fails, printing the diff, if the
# committed file no longer says what the run observed.
set -uo pipefail
cd "$(dirname "$0")/../.."

results=build/tests/reliability/results.tsv
if [ ! -s "$results" ]; then
    echo "reliability: $results is missing: the bad-input matrix did not run"
    exit 1
fi
fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
tests/reliability/make_doc.sh "$results" >"$fresh" || exit 1
cases=$(wc -l <"$results")
failed=$(awk -F'\t' '$6 != "PASS"' "$results" | wc -l)
echo "reliability: $cases cases, $failed failed"
if ! diff -u docs/reliability.md "$fresh"; then
    echo "reliability: docs/reliability.md differs from this run (above); regenerate it with"
    echo "  tests/reliability/make_doc.sh $results > docs/reliability.md"
    exit 1
fi
[ "$failed" -eq 0 ]
