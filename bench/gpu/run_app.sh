#!/usr/bin/env bash
# The recipes that need the whole program (fieldflow, its plugins, ff-make-mosaic) on the GPU
# machine: carry [".gl-app", ".appbundle"] (bench/gpu/pack_app.sh); run.sh unpacks the bundle and
# runs every program from it. Any run.sh options and recipes may be given; by default
#   bash bench/gpu/run_app.sh  =  bash bench/gpu/run.sh large gigapixel
[ $# -gt 0 ] || set -- large gigapixel
exec bash "$(dirname "$0")/run.sh" "$@"
