#!/usr/bin/env bash
# Interrupted training resumes from its last checkpoint (issue 8; CTest reliability_interrupt_resume).
#
#   interrupt_resume.sh FIELDFLOW INPUTS_TOOL WORK_DIR
# 1. A run with checkpoint_interval=100 gets SIGINT once its first checkpoint is in the disk cache:
#    exit 130, no model.ffm or a complete one, and the checkpoint still in the cache.
# 2. The same command again (same graph, values and image) resumes from that checkpoint: it says
#    from which step, finishes with exit 0, writes a model that decodes and a training log that
#    covers every step from the first, and the checkpoint is gone from the cache (the result is
#    cached instead). Every snapshot written before the interrupt is still there (1, 10 and 100,
#    the first checkpoint's step: issue 62, case 9).
set -uo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 FIELDFLOW INPUTS_TOOL WORK_DIR" >&2
    exit 2
fi
fieldflow=$(realpath "$1") tool=$(realpath "$2") work=$(realpath -m "$3")
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/inputs" && cp -r "$here/graphs" "$work/graphs" && cd "$work" || exit 1
"$tool" inputs >/dev/null || exit 1

steps=10000
args=(run graphs/train.yaml --set input=inputs/gray8.png --set steps=$steps --set output=out/resume
      --set snapshots=out/resume/snapshots --set checkpoint_interval=100 --cache cache)
checkpoints() { find cache -name 'checkpoint*' 2>/dev/null; }
fail=0

FIELDFLOW_VALIDATION=1 "$fieldflow" "${args[@]}" >first.log 2>&1 &
pid=$!
# Interrupt once a checkpoint exists (at most 120 s: a loaded machine starts slowly).
for _ in $(seq 600); do
    [ -n "$(checkpoints)" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
done
# The checkpoint is written under a hidden temporary name and renamed, so once it is there it is
# complete: interrupt at once (no fixed wait).
kill -INT "$pid"
wait "$pid"
rc=$?
[ $rc -eq 130 ] || { echo "interrupted run: exit $rc, expected 130"; fail=1; }
if [ -e out/resume/model.ffm ] && ! "$tool" check out/resume/model.ffm 40 30; then
    echo "interrupted run left a half-written model.ffm"; fail=1
fi
[ -n "$(checkpoints)" ] || { echo "no checkpoint in the disk cache after the interrupt"; fail=1; }
# One line says where the checkpoint is and the exact command that resumes.
grep -qF "; to resume, run: $fieldflow ${args[*]}" first.log || { echo "no resume hint after the interrupt"; fail=1; }

FIELDFLOW_VALIDATION=1 "$fieldflow" "${args[@]}" >second.log 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "resumed run: exit $rc, expected 0"; fail=1; }
resumed=$(grep -Eo 'resuming from checkpoint at step [0-9]+' second.log | grep -Eo '[0-9]+$')
if [ -z "$resumed" ] || [ "$resumed" -lt 100 ] || [ "$resumed" -ge $steps ]; then
    echo "resumed run does not say it resumed from a step in 100..$((steps - 1))"; fail=1
fi
"$tool" check out/resume/model.ffm 40 30 || fail=1
# The log covers the whole run: from step 1, in order, to the last step, across the interrupt.
awk -F, -v last=$steps 'NR == 2 && $1 != 1 { print "training log starts at step " $1; bad = 1 }
    NR > 2 && $1 <= prev { print "training log steps out of order at line " NR; bad = 1 }
    NR > 1 { prev = $1 }
    END { if (prev != last) { print "training log ends at step " prev ", not " last; bad = 1 }; exit bad }' \
    out/resume/snapshots/training_log.csv || fail=1
[ -e out/resume/snapshots/prediction_at_$steps.png ] || { echo "no snapshot at the last step"; fail=1; }
# Every snapshot is kept across the interrupt, the one at the first checkpoint's step (100) too
# (issue 62, case 9): the default steps 1, 10, 100, 1000 and the last, and no warning of one lost.
for shot in 1 10 100 1000; do
    [ -e out/resume/snapshots/prediction_at_$shot.png ] || { echo "the snapshot at step $shot is gone"; fail=1; }
done
if grep -q 'is no longer in' second.log; then echo "the resumed run lost a snapshot: $(grep -m1 'is no longer in' second.log)"; fail=1; fi
[ -z "$(checkpoints)" ] || { echo "the checkpoint stayed in the cache after success: $(checkpoints)"; fail=1; }
grep -q 'validation \(error\|warning\): ' first.log second.log && { echo "validation-layer messages"; fail=1; }
[ $fail -eq 0 ] || { sed 's/^/  first | /' first.log; sed 's/^/ second | /' second.log; }
[ $fail -eq 0 ] && echo "interrupt_resume: interrupted at step $resumed, resumed and finished"
exit $fail
