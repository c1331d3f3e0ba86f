#!/usr/bin/env bash
# Batch throughput: images/minute of `fieldflow batch` over a folder, for several --jobs values
# (images in flight on the same device(s)). STEPS '-' passes no steps (graphs without them).
#
#   bench/batch_throughput.sh DIR STEPS "1 2 4" [-- extra fieldflow batch arguments...]
#
# Environment: FIELDFLOW (the program; default build/bin/fieldflow, else fieldflow on PATH),
# GRAPH (default graphs/lake.yaml), DEVICES (passed as --devices; default: the default device),
# KEEP=1 keeps the outputs (printed at the end). Every run uses --no-cache, so each one trains.
# Prints one line per jobs value and a Markdown table for bench/RESULTS.md.
set -euo pipefail
source "$(dirname "$0")/batch_bench_setup.sh"

need_arguments 3 "$@"
DIR=$1
STEPS=$2
JOBS_LIST=$3
shift 3
[ "${1:-}" = "--" ] && shift
EXTRA=("$@")

STEP_ARGS=(--set "steps=$STEPS")
[ "$STEPS" = - ] && STEP_ARGS=() # a graph without a steps variable
DEVICE_ARGS=()
[ -n "${DEVICES:-}" ] && DEVICE_ARGS=(--devices "$DEVICES")

work_folder ff-batch-bench

echo "fieldflow: $FIELDFLOW ($("$FIELDFLOW" --version))"
echo "graph: $GRAPH, steps: $STEPS, folder: $DIR, devices: ${DEVICES:-default}"
ROWS=()
for JOBS in $JOBS_LIST; do
    OUT=$WORK/jobs-$JOBS
    START=$(date +%s.%N)
    set +e
    "$FIELDFLOW" batch "$GRAPH" --input "$DIR" --output "$OUT" "${STEP_ARGS[@]}" \
        --jobs "$JOBS" "${DEVICE_ARGS[@]}" --no-cache --quiet "${EXTRA[@]}"
    RC=$?
    set -e
    END=$(date +%s.%N)
    if [ "$RC" -ne 0 ] && [ "$RC" -ne 1 ]; then
        echo "jobs $JOBS: fieldflow batch exited with $RC" >&2
        exit "$RC"
    fi
    DONE=$(grep -c '^[^,]*,done,' "$OUT/summary.csv" || true)
    FAILED=$(grep -c '^[^,]*,failed,' "$OUT/summary.csv" || true)
    LINE=$(awk -v j="$JOBS" -v d="$DONE" -v f="$FAILED" -v s="$START" -v e="$END" 'BEGIN {
        t = e - s; printf "jobs %-3s %3d done %3d failed %8.1f s %8.2f images/min", j, d, f, t, d * 60 / t }')
    echo "$LINE"
    ROWS+=("$(awk -v j="$JOBS" -v d="$DONE" -v f="$FAILED" -v s="$START" -v e="$END" 'BEGIN {
        t = e - s; printf "| %s | %d | %d | %.1f | %.2f |", j, d, f, t, d * 60 / t }')")
done
echo
echo "| images in flight (--jobs) | done | failed | wall s | images/min |"
echo "|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
[ "${KEEP:-0}" = 1 ] && echo "outputs kept in $WORK"
exit 0
