#!/usr/bin/env bash
# Writes docs/reliability.md from the bad-input matrix's results (bad_inputs.sh RESULTS):
#   make_doc.sh build-rel/tests/reliability/results.tsv > docs/reliability.md
# Everything in the table is what the run observed; nothing here is written by hand per case.
set -euo pipefail
results=$1

cat <<'HEAD'
# Reliability: what every bad input gives

fieldflow runs unattended on other people's files, so every bad input must end in a clear message
and a distinct exit code, never a crash, a hang or a half-written output. Exit codes: `0` success,
`1` a node failed, `2` invalid graph or usage, `130`/`143` interrupted (SIGINT/SIGTERM).

The table below is generated from the test run (`tests/reliability/bad_inputs.sh`, CTest
`reliability_bad_inputs`; regenerate with `tests/reliability/make_doc.sh`, CI compares it with this
file). Each case runs the real `fieldflow` binary on the CPU Vulkan driver (lavapipe) with the
Khronos validation layer on, from a folder holding the graphs of `tests/reliability/graphs/` and the
inputs written by `ff_reliability_inputs` (`tests/reliability/make_inputs.cpp`); `--no-cache
--quiet` are added to every command. The message is the first error line; for accepted inputs it
is the check of the written output (size, bit depth, channels). Each case must match its expected
exit code and message exactly (an anchored pattern in `bad_inputs.sh`) and print no validation
message.

| case | command | exit | message | result |
|---|---|---|---|---|
HEAD

while IFS=$'\t' read -r name command want rc message verdict; do
    message=${message//|/\\|}
    command=${command//|/\\|}
    exit_text=$rc
    [ "$rc" = "$want" ] || exit_text="$rc (expected $want)"
    printf '| %s | `%s` | %s | `%s` | %s |\n' "$name" "$command" "$exit_text" "$message" "$verdict"
done <"$results"

cat <<'TAIL'

Also checked elsewhere in CI (`scripts/test.d/`): the validation layer loads and reports a
deliberately invalid call (`ff_validation_layer_test`), no test process printed a validation
message (`validation.sh`), the unit tests are clean under AddressSanitizer and
UndefinedBehaviorSanitizer (`asan.sh`), and the graph-file and model-file loaders survive 60 s of
libFuzzer each plus every saved crash input (`fuzz.sh`, `tests/fuzz/`).
TAIL
