#!/usr/bin/env bash
# Two builds of ff-engine-bench, the old and the new, alternating in one call on the same GPU: the
# engine's table (the lake model at 2^14..2^22, widths 16/64/128 at 2^20, the 64-wide hash model at
# 2^14 and 2^20, a SIREN at 2^14), each row's us/step, PSNR and loss at the same seed, and whether
# the two built the same SPIR-V. With `tests`, the new build's engine tests on both kernel paths.
#
# Here: strip the old build's ff-engine-bench into .bundle/old/ and the new build's
# ff-engine-bench, ff_engine_tests and ff-shipped-kernels into .bundle/new/ (Release, engine-only:
# bench/gpu/pack.sh's build), leuvenA.jpg into .bundle/img/; .gl/ as bench/gpu/pack.sh leaves it.
# There, in one device call with carry [".gl", ".bundle"]:
#   ROUNDS=2 bash bench/engine_same_speed.sh tests table
set -uo pipefail
B=.bundle
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
python3 -c "import cv2; cv2.imwrite('$B/img/leuvenA.ppm', cv2.imread('$B/img/leuvenA.jpg'))"
IMG=$B/img/leuvenA.ppm
$B/new/ff-shipped-kernels --probe 2>&1 | tee "$OUT/probe.txt"
if [[ " $* " == *" tests "* ]]; then
  for path in coopmat portable; do
    start=$(date +%s)
    FIELDFLOW_KERNEL_PATH=$path timeout 200 $B/new/ff_engine_tests --gtest_brief=1 \
      --gtest_filter='CpuReference.*:GpuGradients.*:GpuForward.*:Training.*:Resume.*:EncodingAdam.*:TargetImage.*:TrainingMemory.*:RenderBands.*:Device.*:Sampler.*' \
      > "$OUT/tests-$path.txt" 2>&1
    echo "tests $path exit $? in $(( $(date +%s) - start )) s: $(grep -E '^\[  PASSED|FAILED TEST|tests ran' "$OUT/tests-$path.txt" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
  done
fi
if [[ " $* " == *" table "* ]]; then
  HASH="--encoding hash_grid --hash-levels 16 --hash-features 2 --hash-base 16 --lr-mlp 0.01 --lr-grid 0.01 --hash-log2-table 15 --hash-scale 1.3 --hidden 64"
  configs=(
    "lake-2^14|--batch 16384"
    "lake-2^16|--batch 65536"
    "lake-2^18|--batch 262144"
    "lake-2^20|--batch 1048576"
    "lake-2^22|--batch 4194304"
    "w16-2^20|--batch 1048576 --hidden 16"
    "w64-2^20|--batch 1048576 --hidden 64"
    "w128-2^20|--batch 1048576 --hidden 128"
    "hash64-2^14|--batch 16384 $HASH"
    "hash64-2^20|--batch 1048576 $HASH"
    "siren64x3-2^14|--batch 16384 --model siren --hidden 64 --layers 3 --lr-mlp 1e-4"
  )
  rounds=${ROUNDS:-2}
  # warm-up: the GPU's clocks up, each binary's kernels compiled into its own cache
  for v in old new; do FIELDFLOW_CACHE_DIR=/tmp/cache-$v $B/$v/ff-engine-bench --image $IMG --steps 3000 --report-every 3000 --render-repeats 1 > /dev/null 2>&1; done
  for r in $(seq 1 $rounds); do
    for c in "${configs[@]}"; do
      name=${c%%|*}; args=${c#*|}
      batch=$(echo $args | sed -E 's/.*--batch ([0-9]+).*/\1/')
      steps=$(( (1 << 26) / batch )); (( steps < 300 )) && steps=300; (( steps > 4000 )) && steps=4000
      order="old new"; (( r % 2 == 0 )) && order="new old"
      for v in $order; do
        line=$(FIELDFLOW_CACHE_DIR=/tmp/cache-$v timeout 120 $B/$v/ff-engine-bench --image $IMG --steps $steps \
               --report-every $steps --render-repeats 1 --seed 1 $args 2>&1 | grep '"event":"result"')
        us=$(echo "$line" | sed -E 's/.*"us_per_step_gpu":([0-9.]+).*/\1/')
        psnr=$(echo "$line" | sed -E 's/.*"psnr":([0-9.]+).*/\1/')
        loss=$(echo "$line" | sed -E 's/.*"final_loss":([0-9.e+-]+).*/\1/')
        echo "$r $name $v steps=$steps us_per_step=$us psnr=$psnr loss=$loss" | tee -a "$OUT/table.txt"
      done
    done
  done
  # The SPIR-V each binary built (the caches' files hold it after a header): the same set?
  for v in old new; do
    find /tmp/cache-$v -type f | while read f; do python3 - "$f" <<'PY'
import sys, hashlib
d = open(sys.argv[1], 'rb').read()
i = d.find(bytes.fromhex('03022307'))
print(hashlib.sha256(d[i:]).hexdigest() if i >= 0 else 'none')
PY
    done | sort > "$OUT/spirv-$v.txt"
  done
  echo "SPIR-V built: old $(wc -l < $OUT/spirv-old.txt), new $(wc -l < $OUT/spirv-new.txt), in both $(comm -12 $OUT/spirv-old.txt $OUT/spirv-new.txt | wc -l)" | tee -a "$OUT/summary.txt"
fi
