#!/usr/bin/env bash
# The GPU benchmark in one device call (repo root on the GPU machine; .gl and .bundle carried, see
# pack.sh). Runs our engine on both kernel paths and the PyTorch peer (eager for a few thousand
# steps, the whole step in a CUDA graph for 40,000) on leuvenA and graf1, then the scaling sweep
# (batch 2^14..2^21 x hidden width 16/32/64/128), and prints the tables (bench/gpu/tables.py).
#   bash bench/gpu/run.sh 2>&1 | tee $OUT/log
# Environment: STEPS (40000), EAGER_STEPS (2000), SCALING_STEPS (300), PARTS ("ours peers scaling"),
# SCALING_WIDTHS ("16 32 64 128").
set -u
cd "$(dirname "$0")/../.."
B=.bundle
RESULTS=${OUT:-/tmp/ff-bench}/results.txt
mkdir -p "$(dirname "$RESULTS")"
: > "$RESULTS"
STEPS=${STEPS:-40000}
EAGER_STEPS=${EAGER_STEPS:-2000}
SCALING_STEPS=${SCALING_STEPS:-300}
PARTS=${PARTS:-"ours peers scaling"}
SCALING_WIDTHS=${SCALING_WIDTHS:-"16 32 64 128"}

if ! ldconfig -p | grep -q libvulkan.so.1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
export FIELDFLOW_CACHE_DIR=/tmp/ffcache PYTHONUNBUFFERED=1
BENCH=$B/bin/ff-engine-bench

{ echo "# date $(date -u +%Y-%m-%d)"; echo "# gpu $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"; } >> "$RESULTS"
python3 -c "import cv2; [cv2.imwrite(f'$B/img/{n}.ppm', cv2.imread(f'$B/img/{f}')) for n, f in [('leuvenA', 'leuvenA.jpg'), ('graf1', 'graf1.png')]]"

run() { # run TAG command...: appends the tag line and the command's JSON lines to RESULTS
  local tag=$1; shift
  echo "# run $tag" >> "$RESULTS"
  echo ">> $tag" >&2
  "$@" 2>&1 | grep '^{' | tee -a "$RESULTS" | grep -E '"event":"(result|profile|check_paths|error)"|"peer"' >&2
}

if [[ " $PARTS " == *" ours "* ]]; then
  for img in leuvenA graf1; do
    run "ours $img coopmat" env FIELDFLOW_KERNEL_PATH=coopmat $BENCH --image $B/img/$img.ppm \
        --steps $STEPS --report-every $STEPS --profile 200 --render-repeats 20 --check-paths
    run "ours $img portable" env FIELDFLOW_KERNEL_PATH=portable $BENCH --image $B/img/$img.ppm \
        --steps $STEPS --report-every $STEPS --profile 200 --render-repeats 20
  done
  # Variants on leuvenA: other coopmat tiles, and the render dispatch through each kernel path.
  for tile in 64 32; do
    run "ours leuvenA coopmat-tile$tile" env FIELDFLOW_KERNEL_PATH=coopmat FIELDFLOW_TRAIN_TILE=$tile \
        $BENCH --image $B/img/leuvenA.ppm --steps $STEPS --report-every $STEPS --profile 200 --render-repeats 2
  done
  for rpath in coopmat portable; do
    run "ours leuvenA coopmat-render-$rpath" env FIELDFLOW_KERNEL_PATH=coopmat FIELDFLOW_RENDER_PATH=$rpath \
        $BENCH --image $B/img/leuvenA.ppm --steps 2000 --report-every 2000 --render-repeats 50
  done
fi
if [[ " $PARTS " == *" peers "* ]]; then
  for img in leuvenA graf1; do
    ext=jpg; [ $img = graf1 ] && ext=png
    run "peer $img" python3 bench/peers/pytorch_field.py --image $B/img/$img.$ext --steps $STEPS \
        --modes graph,eager --eager-steps $EAGER_STEPS
  done
fi
if [[ " $PARTS " == *" scaling "* ]]; then
  for hidden in $SCALING_WIDTHS; do
    for e in 14 15 16 17 18 19 20 21; do
      run "scaling $hidden $((1 << e))" $BENCH --image $B/img/leuvenA.ppm --steps $SCALING_STEPS \
          --batch $((1 << e)) --hidden $hidden --report-every $SCALING_STEPS --render-repeats 1
    done
  done
fi
python3 bench/gpu/tables.py "$RESULTS"
