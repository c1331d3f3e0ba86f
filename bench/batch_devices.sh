#!/usr/bin/env bash
# Batch scaling over devices: images/second of `fieldflow batch` on one device against every device
# (`--devices all`), for several images in flight per device, and whether each image's results
# match between the two (the same seed: the same learned PSNR, the same prediction.png bytes).
#
#   bench/batch_devices.sh DIR STEPS ["1 2"] [-- extra fieldflow batch arguments...]
#
# The third argument lists images in flight per device (default "1"). Environment: FIELDFLOW (the
# program; default build/bin/fieldflow, else fieldflow on PATH), GRAPH (default graphs/lake.yaml),
# MANY (the many-device --devices, default all), ONE (the one-device --devices, default the first
# device MANY became), KEEP=1 keeps the outputs. Every run uses --no-cache, so each one trains.
# Prints one line per run and a Markdown table for bench/RESULTS.md.
set -euo pipefail
source "$(dirname "$0")/batch_bench_setup.sh"

need_arguments 2 "$@"
DIR=$1
STEPS=$2
shift 2
PER_DEVICE_LIST=1
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    PER_DEVICE_LIST=$1
    shift
fi
[ "${1:-}" = "--" ] && shift
EXTRA=("$@")

MANY=${MANY:-all}
work_folder ff-batch-devices

# One batch; sets SECONDS_TAKEN, DONE and USED (the devices the batch says it took).
run_batch() { # OUT DEVICES JOBS
    local out=$1 devices=$2 jobs=$3 start end rc
    start=$(date +%s.%N)
    set +e
    "$FIELDFLOW" batch "$GRAPH" --input "$DIR" --output "$out" --set "steps=$STEPS" \
        --devices "$devices" --jobs "$jobs" --no-cache "${EXTRA[@]}" 2>"$out.stderr" >/dev/null
    rc=$?
    set -e
    end=$(date +%s.%N)
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
        echo "--devices $devices --jobs $jobs: fieldflow batch exited with $rc:" >&2
        tail -5 "$out.stderr" >&2
        exit "$rc"
    fi
    SECONDS_TAKEN=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
    DONE=$(grep -c '^[^,]*,done,' "$out/summary.csv" || true)
    USED=$(sed -n 's/^batch: .* in flight, devices \(.*\)$/\1/p' "$out.stderr" | head -1)
}

# Compares two batches image by image: "N of M predictions identical, PSNR apart by X dB at most".
compare() { # A B
    local a=$1 b=$2 same=0 total=0 worst=0 stem pa pb
    for folder in "$a"/*/; do
        stem=$(basename "$folder")
        [ -f "$a/$stem/metrics.json" ] && [ -f "$b/$stem/metrics.json" ] || continue
        total=$((total + 1))
        if cmp -s "$a/$stem/prediction.png" "$b/$stem/prediction.png"; then same=$((same + 1)); fi
        pa=$(sed -n 's/.*"psnr_learned": *\([-0-9.e+]*\).*/\1/p' "$a/$stem/metrics.json" | head -1)
        pb=$(sed -n 's/.*"psnr_learned": *\([-0-9.e+]*\).*/\1/p' "$b/$stem/metrics.json" | head -1)
        worst=$(awk -v w="$worst" -v x="${pa:-0}" -v y="${pb:-0}" 'BEGIN { d = x - y; if (d < 0) d = -d; print (d > w ? d : w) }')
    done
    echo "$same of $total predictions identical, PSNR apart by $worst dB at most"
}

echo "fieldflow: $FIELDFLOW ($("$FIELDFLOW" --version | head -1))"
echo "graph: $GRAPH, steps: $STEPS, folder: $DIR"
# What MANY becomes (the batch's first lines say), from a batch of the folder's first image alone.
EXTRA_ALL=("${EXTRA[@]}")
EXTRA=("${EXTRA_ALL[@]}" --shard 0/1000000)
run_batch "$WORK/probe" "$MANY" 1
EXTRA=("${EXTRA_ALL[@]}")
IFS=, read -r -a SLOTS <<<"$USED"
N=${#SLOTS[@]}
[ "$N" -gt 0 ] || { echo "--devices $MANY: the batch named no devices" >&2; exit 1; }
echo "--devices $MANY: $N device(s): $USED"

ROWS=()
for PER in $PER_DEVICE_LIST; do
    run_batch "$WORK/many-$PER" "$MANY" $((PER * N))
    MANY_S=$SECONDS_TAKEN MANY_DONE=$DONE MANY_USED=$USED
    ONE_DEVICE=${ONE:-${SLOTS[0]}}
    run_batch "$WORK/one-$PER" "$ONE_DEVICE" "$PER"
    ONE_S=$SECONDS_TAKEN ONE_DONE=$DONE
    SAME=$(compare "$WORK/one-$PER" "$WORK/many-$PER")
    LINE=$(awk -v p="$PER" -v n="$N" -v od="$ONE_DONE" -v os="$ONE_S" -v md="$MANY_DONE" -v ms="$MANY_S" 'BEGIN {
        a = od / os; b = md / ms
        printf "%s per device: 1 device %.3f images/s, %d devices %.3f images/s, %.2fx (%.2f of %d)", p, a, n, b, b / a, b / a / n, n }')
    echo "$LINE; $SAME (devices $MANY_USED)"
    ROWS+=("$(awk -v p="$PER" -v n="$N" -v od="$ONE_DONE" -v os="$ONE_S" -v md="$MANY_DONE" -v ms="$MANY_S" -v same="$SAME" 'BEGIN {
        a = od / os; b = md / ms
        printf "| %s | %d | %.3f | %.3f | %.2fx | %s |", p, n, a, b, b / a, same }')")
done
echo
echo "| images in flight per device | devices | 1 device images/s | all devices images/s | speed-up | results |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
[ "${KEEP:-0}" = 1 ] && echo "outputs kept in $WORK"
exit 0
