#!/usr/bin/env bash
# From a fresh Debian 12 machine to a learned photo: installs the packages, builds fieldflow and
# runs the main job (graphs/lake.yaml) on a sample photo from Debian's opencv-doc package.
# With a discrete GPU it trains the full 40,000 steps; on the CPU driver (lavapipe) a short run.
#   scripts/quickstart.sh [IMAGE] [OUTPUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

input=${1:-/usr/share/doc/opencv-doc/examples/data/leuvenA.jpg}
output=${2:-out/lake}

scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)"

if vulkaninfo --summary 2>/dev/null | grep -q PHYSICAL_DEVICE_TYPE_DISCRETE_GPU; then
  steps=40000 batch=16384
else
  # The CPU driver runs about 15 steps/s at batch 2,048 on 2 cores: a few minutes in all.
  steps=${FIELDFLOW_QUICKSTART_STEPS:-2000} batch=2048
  echo "quickstart: no discrete GPU found; training $steps steps at batch $batch on the CPU driver (lavapipe)."
fi

./build/bin/fieldflow run graphs/lake.yaml --set input="$input" --set output="$output" \
  --set steps="$steps" --set batch="$batch"
echo "quickstart: open $output/report.html"
