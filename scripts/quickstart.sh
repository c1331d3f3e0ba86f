#!/usr/bin/env bash
# From a fresh Debian 12 machine to a learned photo: installs the packages, builds fieldflow and
# runs the main job (graphs/lake.yaml) on a sample photo from Debian's opencv-doc package.
# With a GPU it trains the full 40,000 steps; on the CPU driver (lavapipe) the graph's short run.
#   scripts/quickstart.sh [IMAGE] [OUTPUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

input=${1:-/usr/share/doc/opencv-doc/examples/data/leuvenA.jpg}
output=${2:-out/lake}

scripts/install-deps.sh
# Only what running needs: the test suite and benchmarks are built by scripts/test.sh (same folder).
cmake --preset app >/dev/null
cmake --build --preset app -j "$(nproc)"

# With a GPU the graph's defaults (40,000 steps at batch 16,384); on a CPU Vulkan driver (lavapipe)
# Train takes the graph's CPU budget instead (2,000 steps at batch 2,048) and says so.
./build/bin/fieldflow run graphs/lake.yaml --set input="$input" --set output="$output"
echo "quickstart: open $output/report.html"
