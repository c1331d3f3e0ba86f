#!/usr/bin/env bash
# Whole graphs on the GPU machine (carry [".gl-app", ".appbundle"]; see pack_app.sh), and the
# engine's tests and step benchmark where the bundle holds them. Results under $OUT.
#   GL: the folder of Vulkan loader .debs (default .gl-app: the loader and glvnd, without the
#   validation layers, so that the whole carry stays within 64 MiB)
#   PARTS (any of "tests steps seeds quality jobs firstrun interrupts gigapixel"; default "tests steps jobs"),
#   JOB_SIZES ("leuvenA 6000x4000 8192x8192"; graf1 too), JOB_SETS (one job per entry, each a comma-separated
#   list of extra `--set` assignments; "-" = the defaults; default "-"), JOB_REPEATS (1), JOB_WATCH
#   (1: sample each job's peak memory and the GPU's; 0: time it alone),
#   STEP_IMAGES, STEP_ADAMS ("dense-eager dense-lazy"), STEP_BATCHES, SEED_ADAMS ("dense sparse"),
#   QUALITY_IMAGES ("6000x4000 8192x8192"), GIGA_SIZE ("30000x30000"), GIGA_SETS (extra
#   `fieldflow run` arguments for bench/gigapixel.sh, e.g. "--set steps=30000")
#   bash bench/gpu/run_app.sh 2>&1 | tee $OUT/log
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ff-app}
mkdir -p "$OUT"
PARTS=${PARTS:-"tests steps jobs"}
JOB_SIZES=${JOB_SIZES:-"leuvenA 6000x4000 8192x8192"}
if ! ldconfig -p | grep -q libvulkan.so.1; then
  for f in "${GL:-.gl-app}"/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
# The app bundle (pack_app.sh); without it the engine bundle (.bundle, pack.sh) serves the parts
# that need only the engine (tests, steps, seeds, quality).
APP=/tmp/app
if [ -f .appbundle/app.tar.xz ]; then
  mkdir -p $APP && tar -xJf .appbundle/app.tar.xz -C $APP
else
  APP=$PWD/.bundle
fi
export LD_LIBRARY_PATH=$APP/lib FIELDFLOW_CACHE_DIR=/tmp/ffcache
IMG=/tmp/img
mkdir -p $IMG
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" | tee "$OUT/summary.txt"

# Test photos: leuvenA, and mosaics of the two sample photos (bench/make_mosaic's recipe in Python:
# cv2 is there, the C++ tool's OpenCV is not needed), for the parts that use them.
[[ " $PARTS " =~ \ (steps|seeds|quality|jobs|firstrun|interrupts)\  ]] && python3 - "$APP/img" "$IMG" <<'PY'
import sys, cv2, numpy as np
src, dst = sys.argv[1], sys.argv[2]
photos = [cv2.imread(f"{src}/leuvenA.jpg"), cv2.imread(f"{src}/graf1.png")]
cv2.imwrite(f"{dst}/leuvenA.png", photos[0])
cv2.imwrite(f"{dst}/graf1.png", photos[1])
cv2.imwrite(f"{dst}/leuvenA.ppm", photos[0])
def mosaic(w, h, tile=1024):
    out = np.zeros((h, w, 3), np.uint8)
    k = 0
    for y in range(0, h, tile):
        for x in range(0, w, tile):
            p = photos[k % 2]; k += 1
            side = min(p.shape[:2])  # the centred square of the photo, scaled to the tile
            y0, x0 = (p.shape[0] - side) // 2, (p.shape[1] - side) // 2
            t = cv2.resize(p[y0:y0 + side, x0:x0 + side], (tile, tile), interpolation=cv2.INTER_AREA)
            out[y:y + tile, x:x + tile] = t[:min(tile, h - y), :min(tile, w - x)]
    return out
for w, h in [(6000, 4000), (8192, 8192)]:
    m = mosaic(w, h)
    cv2.imwrite(f"{dst}/{w}x{h}.png", m, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    cv2.imwrite(f"{dst}/{w}x{h}.ppm", m)
PY

if [[ " $PARTS " == *" tests "* ]] && [ -x $APP/bin/ff_engine_tests ]; then
  for path in coopmat portable; do
    FIELDFLOW_KERNEL_PATH=$path $APP/bin/ff_engine_tests --gtest_brief=1 \
      --gtest_filter='CpuReference.*:GpuGradients.*:GpuForward.*:Training.*:Resume.*:EncodingAdam.*:RenderBands.*' \
      > "$OUT/tests-$path.txt" 2>&1
    echo "tests $path exit $?" | tee -a "$OUT/summary.txt"
  done
fi
if [[ " $PARTS " == *" steps "* ]]; then
  # Per-step cost of the encoding's Adam forms on leuvenA and the 8192x8192 mosaic.
  for img in ${STEP_IMAGES:-leuvenA 8192x8192}; do
    for adam in ${STEP_ADAMS:-dense-eager dense-lazy}; do
      for batch in ${STEP_BATCHES:-16384 1048576}; do
        echo "# steps $img $adam $batch" >> "$OUT/steps.jsonl"
        timeout 120 $APP/bin/ff-engine-bench --image $IMG/$img.ppm --grid-adam $adam --batch $batch \
          --steps 2000 --report-every 2000 --profile 100 2>&1 | grep '^{' | tee -a "$OUT/steps.jsonl" |
          python3 -c "import sys, json
for l in sys.stdin:
    e = json.loads(l)
    if e.get('event') == 'result': print('step $img $adam $batch', e['us_per_step_gpu'], 'us/step', e['psnr'], 'dB', e.get('trainer_device_bytes'), 'B')
    if e.get('event') == 'profile': print('profile $img $adam $batch', {k: v for k, v in e.items() if k != 'event'})" | tee -a "$OUT/summary.txt"
      done
    done
  done
  echo "steps done" | tee -a "$OUT/summary.txt"
fi
result_line() { # TAG: the engine benchmark's result event as one summary line
  python3 -c "import sys, json
for l in sys.stdin:
    e = json.loads(l)
    if e.get('event') == 'result': print('$1', e['psnr'], 'dB', e['us_per_step_gpu'], 'us/step')"
}
if [[ " $PARTS " == *" seeds "* ]]; then
  # The lake configuration's quality over seeds 1-10 at 40,000 steps, per form of the encoding's Adam.
  for adam in ${SEED_ADAMS:-dense sparse}; do
    for img in leuvenA graf1; do
      [ -f $IMG/$img.ppm ] || python3 -c "import cv2; cv2.imwrite('$IMG/$img.ppm', cv2.imread('$APP/img/$img.png' if '$img' == 'graf1' else '$APP/img/$img.jpg'))"
      for seed in 1 2 3 4 5 6 7 8 9 10; do
        timeout 120 $APP/bin/ff-engine-bench --image $IMG/$img.ppm --grid-adam $adam --seed $seed \
          --steps 40000 --report-every 40000 --render-repeats 1 2>&1 | grep '^{' | tee -a "$OUT/seeds.jsonl" |
          result_line "seed $adam $img $seed" | tee -a "$OUT/summary.txt"
      done
    done
  done
fi
if [[ " $PARTS " == *" quality "* ]]; then
  # The large photos' quality after the main job's 40,000 steps, per form of the encoding's Adam.
  for img in ${QUALITY_IMAGES:-6000x4000 8192x8192}; do
    for adam in ${SEED_ADAMS:-dense sparse}; do
      timeout 200 $APP/bin/ff-engine-bench --image $IMG/$img.ppm --grid-adam $adam --steps 40000 \
        --report-every 40000 --render-repeats 1 2>&1 | grep '^{' | tee -a "$OUT/quality.jsonl" |
        result_line "quality $adam $img" | tee -a "$OUT/summary.txt"
    done
  done
fi
if [[ " $PARTS " == *" jobs "* ]]; then
  # The main job with its defaults, as a user runs it. The wall time is taken when `wait` returns;
  # a watcher beside the job samples its peak host memory (VmHWM) and the GPU's every 0.5 s (GNU
  # time is not installed there). (Until 2026-11-25 the job's end was noticed by that sampling
  # loop itself, which added up to ~0.6 s of sleep and nvidia-smi to every wall time.)
  for sets in ${JOB_SETS:--}; do
  for size in $JOB_SIZES; do
  for repeat in $(seq 1 "${JOB_REPEATS:-1}"); do
    extra=()
    [ "$sets" = - ] || for a in ${sets//,/ }; do extra+=(--set "$a"); done
    tag=$size; [ "$sets" = - ] || tag="$size-${sets//[,=]/-}"; [ "$repeat" = 1 ] || tag="$tag-run$repeat"
    out=/tmp/jobs/$tag
    mkdir -p /tmp/jobs
    rm -rf "$out"
    start=$(date +%s%N)
    # No `timeout` wrapper: the peak below must be fieldflow's own (VmHWM of its pid).
    $APP/bin/fieldflow run graphs/lake.yaml --no-cache --set input=$IMG/$size.png --set output=$out "${extra[@]}" \
      > "$OUT/job-$tag.log" 2>&1 &
    pid=$!
    ( sleep 240 && kill -TERM $pid 2>/dev/null ) &
    watchdog=$!
    peaks=/tmp/jobs/peaks-$tag
    rm -f $peaks
    # JOB_WATCH=0: no watcher (its nvidia-smi every 0.5 s costs a short job's wall time; session 13).
    [ "${JOB_WATCH:-1}" = 0 ] || ( peak=0 gpumax=0
      while kill -0 $pid 2>/dev/null; do
        rss=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
        [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
        gpu=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)
        [ -n "$gpu" ] && [ "${gpu:-0}" -gt "$gpumax" ] && gpumax=$gpu
        echo "$peak $gpumax" > $peaks.tmp && mv $peaks.tmp $peaks
        sleep 0.5
      done ) &
    watcher=$!  # with JOB_WATCH=0, the background list that only ran the test
    wait $pid; rc=$?
    wall_ms=$((($(date +%s%N) - start) / 1000000))
    kill $watchdog 2>/dev/null
    wait $watcher 2>/dev/null
    if [ -f $peaks ]; then read -r peak gpumax < $peaks; else peak=0 gpumax=; fi  # 0 and ?: not watched
    # The training's own seconds (metrics.json), for the wall / training ratio.
    train=$(python3 -c 'import json, sys; print("%.3f" % json.load(open(sys.argv[1]))["train_seconds"])' \
      "$out/metrics.json" 2>/dev/null || echo "?")
    # The report page's size (issue 14: at most 10 MB at any image size) and the outputs' in all.
    page=$(stat -c %s "$out/report.html" 2>/dev/null || echo "?")
    outputs=$(du -sb "$out" 2>/dev/null | cut -f1)
    printf 'job %s exit %d wall %d ms train %s s peak_rss %d MB peak_gpu %s MiB page %s bytes outputs %s bytes\n' \
      "$tag" $rc $wall_ms "$train" $((peak / 1024)) "${gpumax:-?}" "$page" "${outputs:-?}" | tee -a "$OUT/summary.txt"
    cp "$out/metrics.json" "$OUT/metrics-$tag.json" 2>/dev/null
    ls -la "$out" "$out/snapshots" > "$OUT/files-$tag.txt" 2>&1
  done
  done
  done
fi
if [[ " $PARTS " == *" firstrun "* ]]; then
  # What a machine's first run of the main job (leuvenA, defaults) spends on compiling kernels:
  # each case empties some of the caches first (ours, the SPIR-V; the driver's, its machine code).
  for case in ${FIRSTRUN_CASES:-cold spirv-kept driver-kept warm cold2 warm2}; do
    case $case in
      cold*) rm -rf /tmp/ffcache ~/.cache/nvidia ~/.nv ;;
      spirv-kept) rm -rf ~/.cache/nvidia ~/.nv ;;
      driver-kept) rm -rf /tmp/ffcache ;;
    esac
    out=/tmp/firstrun/$case
    rm -rf "$out"
    start=$(date +%s%N)
    $APP/bin/fieldflow run graphs/lake.yaml --no-cache --set input=$IMG/leuvenA.png --set output=$out \
      > "$OUT/firstrun-$case.log" 2>&1
    rc=$?
    printf 'firstrun %s exit %d wall %d ms\n' "$case" $rc $((($(date +%s%N) - start) / 1000000)) | tee -a "$OUT/summary.txt"
    cp "$out/metrics.json" "$OUT/metrics-firstrun-$case.json" 2>/dev/null
  done
fi
if [[ " $PARTS " == *" interrupts "* ]]; then
  # SIGTERM during each node of the job on the 8192x8192 photo (tests/reliability/interrupt_each_node.sh,
  # the CI test's script on this photo, no validation layer): exit 143 within 1 s, nothing half-written.
  FIELDFLOW_VALIDATION=0 INPUT=$IMG/8192x8192.png WIDTH=8192 HEIGHT=8192 BITS=8 \
    CASES="image save_ground_truth baseline train learned report" \
    bash tests/reliability/interrupt_each_node.sh $APP/bin/fieldflow $APP/bin/ff_reliability_inputs /tmp/interrupts 1 \
    > "$OUT/interrupts.txt" 2>&1
  echo "interrupts exit $? $(tail -1 "$OUT/interrupts.txt")" | tee -a "$OUT/summary.txt"
fi
if [[ " $PARTS " == *" gigapixel "* ]]; then
  # bench/gigapixel.sh: a 0.9-gigapixel mosaic of the sample photos learned with graphs/gigapixel.yaml.
  # The sample photos when the bundle has them (pack_app.sh MOSAIC_SAMPLES=1), else leuvenA and graf1.
  photos=(SAMPLES=$APP/img/samples); [ -d $APP/img/samples ] || photos=(PHOTOS=$APP/img)
  env "${photos[@]}" FIELDFLOW=$APP/bin/fieldflow MAKE_MOSAIC=$APP/bin/ff-make-mosaic \
    SIZE=${GIGA_SIZE:-30000x30000} bash bench/gigapixel.sh /tmp/giga -- ${GIGA_SETS:-} > "$OUT/gigapixel.log" 2>&1
  echo "gigapixel exit $?" | tee -a "$OUT/summary.txt"
  cat /tmp/giga/summary.txt >> "$OUT/summary.txt"
  cp /tmp/giga/result/metrics.json "$OUT/metrics-gigapixel.json" 2>/dev/null
fi
