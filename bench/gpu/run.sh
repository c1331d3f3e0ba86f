#!/usr/bin/env bash
# The benchmark's one driver: six recipes, each a question a user or contributor asks, answered
# with ff-engine-bench flags and fieldflow commands only (bench/README.md says what each prints and
# how long it takes; bench/RESULTS.md holds today's figures).
#
#   bash bench/gpu/run.sh [--small] [--device D] [--out DIR] [--dry-run] RECIPE...
#
#   peer       the main job (lake model, 40,000 steps, batch 2^14) on both kernel paths, and the
#              PyTorch peer of the same model (its whole step in a CUDA graph, and eager)
#   scaling    samples a second per batch (2^10 to 2^22) and MLP width (16 to 128), and the 64-wide
#              hash model, 300 steps a cell
#   seeds      quality over seeds: the lake model over seeds 1-10 (40,000 steps), the two hash models
#              over seeds 11-20 with Train's defaults, and the peer with the same recipe
#   large      large photos: the engine's step and PSNR on mosaics up to 8192x8192, and the main job
#              end to end on them where the whole program is here (pack_app.sh)
#   gigapixel  a 0.9-gigapixel mosaic learned end to end with graphs/gigapixel.yaml (bench/gigapixel.sh)
#   paths      the tensor-core and the portable kernels on the same trained models (lake, width
#              128, hash, SIREN): forward, render and gradients compared, and each path's PSNR
#
#   --small    sizes for a CPU driver (lavapipe) or a quick look: short runs, small batches and
#              photos; the figures then say nothing about a GPU
#   --device D ff-engine-bench's device: auto (default), cpu or an index
#   --out DIR  results.txt (each run's JSON lines under "# run TAG") and logs; default $OUT, else
#              /tmp/ff-bench
#   --dry-run  print every command instead of running it
#   --list     print the recipes' names
#
# Programs: ff-engine-bench and ff_engine_tests from .bundle/bin (bench/gpu/pack.sh), the whole
# program from .appbundle/app.tar.xz (bench/gpu/pack_app.sh), else from build/bin. On the GPU
# machine, which has no Vulkan loader, carry .gl (or .gl-app) with the bundle: its .debs are
# unpacked when libvulkan.so.1 is missing.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
RECIPES="peer scaling seeds large gigapixel paths"

usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
SMALL=0 DEVICE=auto DRY=0 OUT_DIR=${OUT:-/tmp/ff-bench}
chosen=()
while [ $# -gt 0 ]; do
  case $1 in
    --small) SMALL=1 ;;
    --device) DEVICE=${2:?--device needs a value}; shift ;;
    --out) OUT_DIR=${2:?--out needs a folder}; shift ;;
    --dry-run) DRY=1 ;;
    --list) echo $RECIPES; exit 0 ;;
    -h|--help) usage ;;
    -*) echo "run.sh: unknown option $1" >&2; usage ;;
    *) [[ " $RECIPES " == *" $1 "* ]] || { echo "run.sh: unknown recipe '$1' (recipes: $RECIPES)" >&2; exit 2; }
       chosen+=("$1") ;;
  esac
  shift
done
[ ${#chosen[@]} -gt 0 ] || { echo "run.sh: name at least one recipe: $RECIPES" >&2; exit 2; }

# Sizes: the full ones are the figures of bench/RESULTS.md; --small keeps every run short.
if [ $SMALL = 1 ]; then
  STEPS=500 BATCH=(--batch 2048) EAGER_STEPS=100 PROFILE=(--profile 20) WARM_STEPS=20 PHOTO_SCALE=0.5
  SCALING_STEPS=20 SCALING_BATCHES="10 12" SCALING_WIDTHS="16 32"
  LAKE_SEEDS="1 2 3" HASH_SEEDS=1-3 HASH_SMALL_STEPS=300 HASH_LARGE_STEPS=200
  LARGE_STEPS=600 LARGE_SIZES="1500x1000" JOB_SETS=(--set cpu_steps=200)
  GIGA_SIZE=2000x2000 GIGA_TABLE=16 PATH_STEPS=(200 200 200)
else
  STEPS=40000 BATCH=() EAGER_STEPS=2000 PROFILE=(--profile 200) WARM_STEPS=2000 PHOTO_SCALE=1
  SCALING_STEPS=300 SCALING_BATCHES="10 14 16 18 20 21 22" SCALING_WIDTHS="16 32 64 128"
  LAKE_SEEDS="1 2 3 4 5 6 7 8 9 10" HASH_SEEDS=11-20 HASH_SMALL_STEPS=5000 HASH_LARGE_STEPS=2000
  LARGE_STEPS=12000 LARGE_SIZES="3500x3500 6000x4000 8192x8192" JOB_SETS=()
  GIGA_SIZE=30000x30000 GIGA_TABLE=22 PATH_STEPS=(40000 5000 10000) # lake; width 128 and hash; SIREN
fi
RUN_TIMEOUT=300 # seconds a run may take: one that hangs cannot eat the device call

mkdir -p "$OUT_DIR"
RESULTS=$OUT_DIR/results.txt
WORK=/tmp/ff-bench-work
IMG=$WORK/img

# --- programs and the GPU machine's setup ---------------------------------------------------
source bench/gpu/app_env.sh
[ $DRY = 0 ] && mkdir -p "$IMG"
BENCH=$(program ff-engine-bench)
FIELDFLOW=$(program fieldflow)
MAKE_MOSAIC=$(program ff-make-mosaic)
have_cv2() { python3 -c 'import cv2' 2> /dev/null; }
have_torch() { python3 -c 'import torch' 2> /dev/null; }

# --- running and recording ------------------------------------------------------------------
show() { printf '%q ' "$@" | sed 's/ $//'; echo; }
# run TAG COMMAND...: the command's JSON lines go to results.txt under "# run TAG"; the results,
# errors and the peer's lines are echoed as they come.
run() {
  local tag=$1; shift
  if [ $DRY = 1 ]; then echo "[$tag] $(show "$@")"; return; fi
  echo "# run $tag" >> "$RESULTS"
  echo ">> $tag" >&2
  timeout $RUN_TIMEOUT "$@" 2>&1 | grep '^{' | tee -a "$RESULTS" |
    grep -E '"event":"(result|check_paths|error|job)"|"peer"' >&2
}
# step COMMAND...: a command that prepares rather than measures; quiet: its output dropped.
step() { if [ $DRY = 1 ]; then show "$@"; else "$@"; fi; }
quiet() { if [ $DRY = 1 ]; then show "$@"; else "$@" > /dev/null 2>&1; fi; }
bench() { run "$1" "$BENCH" --device "$DEVICE" "${@:2}"; }
summary() { [ $DRY = 1 ] || python3 "bench/gpu/$1" "$RESULTS"; }

# to_ppm NAME: $IMG/NAME.ppm from the sample photo, which ff-engine-bench and the peer both read
# (the engine reads binary PPM only); --small halves its sides (area average).
to_ppm() {
  local src=$PHOTOS/$1.jpg
  [ "$1" = graf1 ] && src=$PHOTOS/$1.png
  [ -f "$IMG/$1.ppm" ] && return
  if have_cv2; then
    step python3 -c 'import cv2, sys; s = float(sys.argv[3]); p = cv2.imread(sys.argv[1])
cv2.imwrite(sys.argv[2], p if s == 1 else cv2.resize(p, None, fx=s, fy=s, interpolation=cv2.INTER_AREA))' \
        "$src" "$IMG/$1.ppm" $PHOTO_SCALE
  else
    quiet "$FIELDFLOW" run bench/to_ppm.yaml --no-cache --set "input=$src" --set "output=$IMG/$1.ppm" \
        --set scale=$PHOTO_SCALE
  fi
}
# mosaic WxH EXT: $IMG/WxH.EXT, a photo of that size tiled with 1000x1000 squares of leuvenA and
# graf1 (with Python's OpenCV; without it ff-make-mosaic paints one from the same two photos,
# another picture).
mosaic() {
  local w=${1%x*} h=${1#*x} out=$IMG/$1.$2
  [ -f "$out" ] && return
  if have_cv2; then
    step python3 - "$PHOTOS" "$w" "$h" "$out" <<'PY'
import sys, cv2, numpy as np
src, w, h, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
tiles = []
for p in (cv2.imread(f"{src}/leuvenA.jpg"), cv2.imread(f"{src}/graf1.png")):
    side = min(p.shape[:2])
    y0, x0 = (p.shape[0] - side) // 2, (p.shape[1] - side) // 2
    tiles.append(cv2.resize(p[y0:y0 + side, x0:x0 + side], (1000, 1000), interpolation=cv2.INTER_AREA))
nx, ny = (w + 999) // 1000, (h + 999) // 1000
rows = [np.hstack([tiles[(r + c) % 2] for c in range(nx)])[:, :w] for r in range(2)]
cv2.imwrite(path, np.vstack([rows[r % 2] for r in range(ny)])[:h])
PY
  else
    mkdir -p "$WORK/two"
    cp "$PHOTOS/leuvenA.jpg" "$PHOTOS/graf1.png" "$WORK/two/" 2> /dev/null
    quiet "$MAKE_MOSAIC" --width "$w" --height "$h" --cell 1000 --photos "$WORK/two" --output "$out"
  fi
}
# A run first, so that the GPU's clocks are up before the figures that depend on them.
warm_up() { to_ppm leuvenA; quiet "$BENCH" --device "$DEVICE" --image "$IMG/leuvenA.ppm" --steps $WARM_STEPS "${BATCH[@]}"; }

# The hash models of the seeds recipe (16 levels x 2 features from 16 cells, per-level scale 1.3):
# small 2^12 rows and an MLP 32x2 (5,000 steps), large 2^15 rows and 64x2 (2,000 steps).
HASH=(--encoding hash_grid --hash-levels 16 --hash-features 2 --hash-base 16 --hash-scale 1.3)
HASH_SMALL=("${HASH[@]}" --hash-log2-table 12 --hidden 32)
HASH_LARGE=("${HASH[@]}" --hash-log2-table 15 --hidden 64)

# --- the recipes ----------------------------------------------------------------------------
recipe_peer() {
  local img
  for img in leuvenA graf1; do
    to_ppm $img
    bench "ours $img default" --image "$IMG/$img.ppm" --steps $STEPS --report-every $STEPS "${BATCH[@]}" \
        "${PROFILE[@]}" --render-repeats 20
    bench "ours $img portable" --kernel-path portable --image "$IMG/$img.ppm" --steps $STEPS \
        --report-every $STEPS "${BATCH[@]}" "${PROFILE[@]}" --render-repeats 20
    if [ $DRY = 1 ] || have_torch; then
      run "peer $img" python3 bench/peers/pytorch_field.py --image "$IMG/$img.ppm" --steps $STEPS \
          "${BATCH[@]}" --modes graph,eager --eager-steps $EAGER_STEPS
    else
      echo "peer $img: skipped (no PyTorch here)" >&2
    fi
  done
  summary tables.py
}

recipe_scaling() {
  local hidden e
  to_ppm leuvenA
  warm_up
  for hidden in $SCALING_WIDTHS; do
    for e in $SCALING_BATCHES; do
      bench "scaling dense $hidden $((1 << e))" --image "$IMG/leuvenA.ppm" --hidden $hidden --batch $((1 << e)) \
          --steps $SCALING_STEPS --report-every $SCALING_STEPS --render-repeats 1
    done
  done
  for e in $SCALING_BATCHES; do
    bench "scaling hash 64 $((1 << e))" --image "$IMG/leuvenA.ppm" "${HASH_LARGE[@]}" --batch $((1 << e)) \
        --steps $SCALING_STEPS --report-every $SCALING_STEPS --render-repeats 1
  done
  summary tables.py
}

recipe_seeds() {
  local img seed config steps flags peer first=${HASH_SEEDS%-*} last=${HASH_SEEDS#*-}
  for img in leuvenA graf1; do
    to_ppm $img
    for seed in $LAKE_SEEDS; do
      bench "seeds lake $img $seed" --image "$IMG/$img.ppm" --seed $seed --steps $STEPS --report-every $STEPS \
          "${BATCH[@]}" --render-repeats 1
    done
    for config in hash-small hash-large; do
      if [ $config = hash-small ]; then steps=$HASH_SMALL_STEPS flags=("${HASH_SMALL[@]}") peer=(--hash-log2-table 12 --hidden 32)
      else steps=$HASH_LARGE_STEPS flags=("${HASH_LARGE[@]}") peer=(--hash-log2-table 15 --hidden 64); fi
      for seed in $(seq "$first" "$last"); do
        bench "seeds $config $img $seed" --image "$IMG/$img.ppm" "${flags[@]}" --seed $seed --steps $steps \
            --report-every $steps "${BATCH[@]}" --render-repeats 1
      done
      # The peer trains Train's recipe: rate 3e-2, warm-up over 1.25% of the steps, hidden biases
      # 0.1, decay to 0.03x, sigmoid output; one process for every seed.
      if [ $DRY = 1 ] || have_torch; then
        run "peer seeds $config $img $HASH_SEEDS" python3 bench/peers/pytorch_field.py --image "$IMG/$img.ppm" \
            --encoding hash_grid "${peer[@]}" --steps $steps "${BATCH[@]}" --modes graph --seeds "$HASH_SEEDS" \
            --lr-mlp 0.03 --lr-grid 0.03 --warmup 0.0125 --final-scale 0.03 --hidden-bias 0.1
      fi
    done
  done
  summary seeds.py
}

recipe_large() {
  local size ppm job
  to_ppm leuvenA
  warm_up
  for size in leuvenA $LARGE_SIZES; do
    ppm=$IMG/$size.ppm
    [ $size = leuvenA ] || mosaic $size ppm
    bench "large $size" --image "$ppm" --steps $LARGE_STEPS --report-every $((LARGE_STEPS / 6)) "${BATCH[@]}" \
        --render-repeats 1
  done
  # The largest photo at a batch of 2^16, where a step reads more of its grid.
  [ $SMALL = 1 ] || bench "large 8192x8192 batch 2^16" --image "$IMG/8192x8192.ppm" --batch 65536 --steps 6000 \
      --report-every 1000 --render-repeats 1
  summary late.py
  # The main job end to end, as a user runs it (every default, no cache): wall time, training
  # time, peak host memory and the report page's size.
  if [ $DRY = 0 ] && [ ! -x "$FIELDFLOW" ]; then
    echo "large: the main job end to end skipped (no fieldflow: bash bench/gpu/pack_app.sh)" >&2
    return
  fi
  for size in leuvenA $LARGE_SIZES; do
    if [ $size = leuvenA ]; then job=$PHOTOS/leuvenA.jpg; else mosaic $size png; job=$IMG/$size.png; fi
    step rm -rf "$WORK/job-$size"
    run "job $size" python3 bench/gpu/timed_job.py "$WORK/job-$size" -- "$FIELDFLOW" run graphs/lake.yaml \
        --no-cache --set "input=$job" --set "output=$WORK/job-$size" "${JOB_SETS[@]}"
  done
  summary tables.py
}

recipe_gigapixel() {
  if [ $DRY = 0 ] && { [ ! -x "$FIELDFLOW" ] || [ ! -x "$MAKE_MOSAIC" ]; }; then
    echo "gigapixel: skipped (needs fieldflow and ff-make-mosaic: bash bench/gpu/pack_app.sh)" >&2
    return
  fi
  # The bundle's own sample photos when it carries them (pack_app.sh MOSAIC_SAMPLES=1), else the
  # photos the bundle has (leuvenA and graf1); without a bundle, gigapixel.sh's own choice of
  # Debian's sample photos.
  local photos=()
  [ -d $APP/img ] && photos=(PHOTOS=$APP/img)
  [ -d $APP/img/samples ] && photos=(SAMPLES=$APP/img/samples)
  step env ${photos[@]+"${photos[@]}"} FIELDFLOW="$FIELDFLOW" MAKE_MOSAIC="$MAKE_MOSAIC" SIZE=$GIGA_SIZE TABLE=$GIGA_TABLE \
      bash bench/gigapixel.sh "$WORK/giga" | tee "$OUT_DIR/gigapixel.txt"
}

recipe_paths() {
  local model img flags steps
  to_ppm leuvenA
  to_ppm graf1
  for model in lake:leuvenA lake:graf1 w128:leuvenA hash:leuvenA siren:leuvenA; do
    img=${model#*:} model=${model%:*}
    case $model in
      lake) flags=() steps=${PATH_STEPS[0]} ;;
      w128) flags=(--hidden 128) steps=${PATH_STEPS[1]} ;;
      hash) flags=("${HASH_SMALL[@]}") steps=${PATH_STEPS[1]} ;;
      siren) flags=(--model siren --hidden 64 --layers 3 --lr-mlp 1e-4) steps=${PATH_STEPS[2]} ;;
    esac
    bench "paths $model $img default" --image "$IMG/$img.ppm" "${flags[@]}" --steps $steps --report-every $steps \
        "${BATCH[@]}" --render-repeats 1 --check-paths
    bench "paths $model $img portable" --kernel-path portable --image "$IMG/$img.ppm" "${flags[@]}" --steps $steps \
        --report-every $steps "${BATCH[@]}" --render-repeats 1
  done
  summary tables.py
}

if [ $DRY = 0 ]; then
  : > "$RESULTS"
  gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -1)
  { echo "# date $(date -u +%Y-%m-%d)"; echo "# gpu ${gpu:-none found by nvidia-smi}"; } >> "$RESULTS"
fi
for recipe in "${chosen[@]}"; do
  [ $DRY = 1 ] && echo "## $recipe"
  "recipe_$recipe"
done
