#!/usr/bin/env bash
# Validation layer: the main test stage ran every test with FIELDFLOW_VALIDATION=1, and the engine
# prints each validation-layer message to stderr ("fieldflow engine: validation error: ...").
# This stage fails if any test process printed one (CTest keeps every test's output in
# LastTest.log), and if the test that proves the layer loads and catches misuse did not pass.
set -uo pipefail
cd "$(dirname "$0")/../.."

log=build/Testing/Temporary/LastTest.log
if [ ! -s "$log" ]; then
    echo "validation: $log is missing: the test stage did not run"
    exit 1
fi

# Every validation message, with the test that printed it; the one test that provokes an error on
# purpose is the exception.
provoked=ValidationLayer.InvalidCallIsCaught
awk -v skip="$provoked" '
    /^[0-9]+\/[0-9]+ Test: / {test = $3}
    /validation (error|warning): / && test != skip {print test ": " $0}' "$log" \
    >/tmp/ff-validation-messages.txt
rc=0
if [ -s /tmp/ff-validation-messages.txt ]; then
    echo "validation: $(wc -l </tmp/ff-validation-messages.txt) validation-layer message(s) in test output:"
    head -n 40 /tmp/ff-validation-messages.txt
    rc=1
fi
for test in $provoked ValidationLayer.CleanDeviceOpenReportsNothing; do
    verdict=$(awk -v t="$test" '$0 ~ "^[0-9]+/[0-9]+ Test: " t "$" {found = 1}
        found && /^Test (Passed|Failed)/ {print $2; exit}' "$log")
    if [ "$verdict" != "Passed." ]; then
        echo "validation: $test did not run and pass (is VK_LAYER_KHRONOS_validation installed?)"
        rc=1
    fi
done
[ $rc -eq 0 ] && echo "validation: layer loaded and caught the provoked error; no messages in $(grep -c ' Test: ' "$log") tests"
exit $rc
