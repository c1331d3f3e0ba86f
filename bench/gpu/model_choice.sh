#!/usr/bin/env bash
# Dense grid against hash grid at equal parameter counts (bench/model_choice.py) on the GPU
# machine, with the whole program from the app bundle: carry [".gl-app", ".appbundle"] after
# `bash bench/gpu/pack_app.sh` here (the bundle holds the benchmark's photos). The table goes to
# $OUT/model_choice/table.md (.csv, .json); any model_choice.py options may be given (--small
# for a quick look).
#   bash bench/gpu/model_choice.sh [--small] [--scales 1,0.5] ...
set -u
cd "$(dirname "$0")/../.."
source bench/gpu/app_env.sh
photos=/usr/share/doc/opencv-doc/examples/data
[ -f "$APP/img/aloeL.jpg" ] && photos=$APP/img
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -1
exec python3 bench/model_choice.py --fieldflow "$(program fieldflow)" --photos "$photos" \
    --out "${OUT:-/tmp/ff-bench}/model_choice" "$@"
