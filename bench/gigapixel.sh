#!/usr/bin/env bash
# The gigapixel benchmark: a mosaic of the sample photos (ff-make-mosaic; 30000x30000 = 0.9
# gigapixels by default), learned with graphs/gigapixel.yaml: read, trained, rendered, scored and
# reported in one timed `fieldflow run`. Reports the wall time, each node's time, the PSNR/SSIM of
# the learned image and of the bilinear baseline at the same parameter count, the process's peak
# host memory (getrusage of the run) and the device memory (the trainer's, from metrics.json, and
# the GPU's peak use from nvidia-smi where there is one).
#
#   bash bench/gigapixel.sh [OUT_DIR] [-- extra `fieldflow run` arguments, e.g. --set steps=30000]
#
# Environment: SIZE (WxH, default 30000x30000), MOSAIC_FORMAT (png), PHOTOS (a folder of photos;
# default the OpenCV samples), SAMPLES (where the OpenCV samples are, if not in Debian's folder), FIELDFLOW and MAKE_MOSAIC (the programs; default build/bin/...),
# TABLE (log2 rows a hash level, default 22: 57 M parameters; see graphs/gigapixel.yaml). The mosaic is kept
# in OUT_DIR and reused when it exists. Writes OUT_DIR/summary.txt and prints it.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT_DIR=${1:-out/gigapixel}
shift || true
[ "${1:-}" = "--" ] && shift
EXTRA=("$@")
SIZE=${SIZE:-30000x30000}
WIDTH=${SIZE%x*}
HEIGHT=${SIZE#*x}
FIELDFLOW=${FIELDFLOW:-$ROOT/build/bin/fieldflow}
MAKE_MOSAIC=${MAKE_MOSAIC:-$ROOT/build/bin/ff-make-mosaic}
mkdir -p "$OUT_DIR"
MOSAIC=$OUT_DIR/mosaic-$SIZE.${MOSAIC_FORMAT:-png}
SUMMARY=$OUT_DIR/summary.txt

if [ ! -f "$MOSAIC" ]; then
    echo "# painting the $SIZE mosaic: $MOSAIC"
    start=$(date +%s)
    "$MAKE_MOSAIC" --width "$WIDTH" --height "$HEIGHT" --output "$MOSAIC" ${PHOTOS:+--photos "$PHOTOS"} \
        ${SAMPLES:+--samples "$SAMPLES"}
    echo "mosaic $SIZE written in $(($(date +%s) - start)) s ($(stat -c %s "$MOSAIC") bytes)"
fi

# The GPU's memory in use, sampled every 200 ms while the run lasts (its peak is reported).
GPU_LOG=$OUT_DIR/gpu-memory.txt
: > "$GPU_LOG"
SAMPLER=
if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$GPU_LOG" 2>/dev/null &
    SAMPLER=$!
fi
trap '[ -n "$SAMPLER" ] && kill $SAMPLER 2>/dev/null || true' EXIT

RUN_LOG=$OUT_DIR/run.log
echo "# fieldflow run graphs/gigapixel.yaml on $MOSAIC"
python3 - "$RUN_LOG" "$FIELDFLOW" run "$ROOT/graphs/gigapixel.yaml" --set "input=$MOSAIC" \
    --set "output=$OUT_DIR/result" --set "log2_table_size=${TABLE:-22}" --no-cache "${EXTRA[@]}" <<'PY'
# Runs the command with its output teed to the log; prints the wall time and the peak resident
# memory of the run (getrusage of the waited-for child: the fieldflow process).
import resource, subprocess, sys, time
log, command = sys.argv[1], sys.argv[2:]
start = time.monotonic()
with open(log, "w") as out:
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in p.stdout:
        sys.stdout.write(line)
        out.write(line)
    p.wait()
wall = time.monotonic() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
with open(log, "a") as out:
    out.write(f"# exit {p.returncode} wall {wall:.1f} s peak_rss {peak}\n")
sys.exit(p.returncode)
PY
status=$?
[ -n "$SAMPLER" ] && kill $SAMPLER 2>/dev/null || true

python3 - "$RUN_LOG" "$OUT_DIR/result/metrics.json" "$GPU_LOG" "$SIZE" > "$SUMMARY" <<'PY'
import json, re, sys
log, metrics_path, gpu_log, size = sys.argv[1:5]
text = open(log).read()
m = re.search(r"# exit (\d+) wall ([\d.]+) s peak_rss (\d+)", text)
print(f"gigapixel {size}: exit {m.group(1)}, wall {float(m.group(2)):.1f} s, "
      f"peak host memory {int(m.group(3)) / 2**30:.1f} GiB")
for name, seconds in re.findall(r"^ran\s+(\S+)\s+([\d.]+) s", text, re.M):
    print(f"  node {name}: {float(seconds):.1f} s")
for line in re.findall(r"^\[train\] (device memory: .*|trained .*)$", text, re.M):
    print(f"  train: {line}")
for line in re.findall(r"^\[baseline\] (grid .*)$", text, re.M):
    print(f"  baseline: {line}")
gpu = [int(v) for v in open(gpu_log).read().split() if v.isdigit()]
if gpu:
    print(f"  GPU memory in use, peak: {max(gpu) / 1024:.1f} GiB (nvidia-smi, every 200 ms)")
try:
    e = json.load(open(metrics_path))
    print(f"  learned: PSNR {e['psnr_learned']:.2f} dB, SSIM {e['ssim_learned']:.4f}; "
          f"bilinear at the same parameter count: PSNR {e['psnr_bilinear']:.2f} dB, SSIM {e['ssim_bilinear']:.4f}")
    print(f"  model: {e['parameter_count']} parameters, {e['model_bytes']} bytes; trainer device memory "
          f"{e['device_bytes'] / 2**30:.2f} GiB; {e['steps']} steps in {e['train_seconds']:.1f} s")
except (OSError, KeyError, ValueError) as error:
    print(f"  no metrics: {error}")
PY
cat "$SUMMARY"
exit $status
