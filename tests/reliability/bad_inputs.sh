#!/usr/bin/env bash
# The bad-input matrix: every case runs the real `fieldflow` binary and must give its exact exit
# code and message (an anchored extended regex over the first error line, or for accepted inputs
# the checked output). Every run has the Khronos validation layer on; any validation message
# fails the case. Writes one row per case to RESULTS (tab-separated: case, command, expected
# exit code, exit code, message, PASS/FAIL); make_doc.sh turns that into docs/reliability.md.
#
#   bad_inputs.sh FIELDFLOW INPUTS_TOOL WORK_DIR RESULTS
set -uo pipefail

if [ $# -ne 4 ] && [ $# -ne 5 ]; then
    echo "usage: $0 FIELDFLOW INPUTS_TOOL WORK_DIR RESULTS [ONLY=user_files]" >&2
    exit 2
fi
fieldflow=$(realpath "$1") tool=$(realpath "$2") work=$(realpath -m "$3") results=$(realpath -m "$4")
here=$(cd "$(dirname "$0")" && pwd)

rm -rf "$work" && mkdir -p "$work/inputs" || exit 1
cp -r "$here/graphs" "$work/graphs" || exit 1
cd "$work" || exit 1
"$tool" inputs || { echo "bad_inputs: cannot make the input files"; exit 1; }
: >"$results"
failures=0

# What the files under a folder are (paths and bytes), to compare before and after a case.
snapshot() { (cd "$1" && find . -print0 | sort -z | xargs -0 -r sha256sum 2>/dev/null; find . | sort); }

# A command run after the next case (eval'd in the work folder); the case fails if it fails.
post=""

# run_case NAME EXPECTED_RC MESSAGE_REGEX [ENV=VALUE...] [CACHE=DIR] -- FIELDFLOW_ARGS... [-- check FILE W H]
# CACHE=DIR runs with `--cache DIR` instead of `--no-cache`; CACHE= with neither.
run_case() {
    local name=$1 want_rc=$2 want=$3; shift 3
    local envs=() cache=(--no-cache)
    while [ "$1" != "--" ]; do
        if [ "$1" = CACHE= ]; then cache=() # a command without cache options (render)
        elif [[ "$1" == CACHE=* ]]; then cache=(--cache "${1#CACHE=}")
        else envs+=("$1"); fi
        shift
    done
    shift
    local args=() checks=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
    [ $# -gt 0 ] && { shift; checks=("$@"); }

    local log="logs/$name.log"
    mkdir -p logs
    # A hang is a failure too (exit 124), not a stuck test.
    env FIELDFLOW_VALIDATION=1 "${envs[@]}" timeout -k 5 "${FF_CASE_TIMEOUT:-300}" "$fieldflow" "${args[@]}" \
        "${cache[@]}" --quiet >"$log" 2>&1
    local rc=$?

    local message
    if [ "$rc" -eq 0 ] && [ ${#checks[@]} -gt 0 ]; then
        message=$("$tool" "${checks[@]}" 2>&1) || message="output check failed: $message"
    elif [ "$rc" -eq 0 ]; then
        message=$(grep -m1 'warning: ' "$log" || echo ok)
    else
        # The first error line: `error: node 'x' failed: ...`, or `FILE:L:C: error: ...`.
        message=$(grep -m1 -E '(^|: )error: ' "$log" || head -n1 "$log")
    fi
    message=${message//$work\//} # batch messages name absolute paths: show them relative
    # Cache keys change with every shader or op change: shown as <key>, so the table stays put.
    message=$(sed -E 's#[0-9a-f]{2}/[0-9a-f]{32}#<k>/<key>#g; s/[0-9a-f]{32}/<key>/g' <<<"$message")
    # A lock's holder: its pid and the program's path change from run to run.
    message=$(sed -E 's#pid [0-9]+: [^ ]*fieldflow #pid <pid>: fieldflow #g' <<<"$message")

    local verdict=PASS why=""
    if [ "$rc" -ne "$want_rc" ]; then verdict=FAIL why="exit code $rc, expected $want_rc"; fi
    if [ -n "$post" ] && ! eval "$post"; then verdict=FAIL why="$why${why:+; }check failed: $post"; fi
    post=""
    if ! [[ "$message" =~ ^${want}$ ]]; then verdict=FAIL why="$why${why:+; }message does not match ^${want}\$"; fi
    if grep -q 'validation \(error\|warning\): ' "$log"; then
        verdict=FAIL why="$why${why:+; }the validation layer reported a message"
    fi
    # Outputs are written under a temporary name and renamed: none may be left behind.
    if [ -d out ] && find out -name '.*.tmp-*' | grep -q .; then
        verdict=FAIL why="$why${why:+; }temporary files left: $(find out -name '.*.tmp-*' | head -n3)"
    fi

    local shown="fieldflow ${args[*]}"
    [ "${cache[0]:-}" = --cache ] && shown="$shown --cache ${cache[1]}"
    [ ${#envs[@]} -gt 0 ] && shown="${envs[*]} $shown"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$shown" "$want_rc" "$rc" "$message" "$verdict" >>"$results"
    if [ $verdict = PASS ]; then
        printf 'PASS  %-22s exit %s  %s\n' "$name" "$rc" "$message"
    else
        failures=$((failures + 1))
        printf 'FAIL  %-22s %s\n      message: %s\n' "$name" "$why" "$message"
        sed 's/^/      | /' "$log"
    fi
}

# run_interrupt NAME SIGNAL EXPECTED_RC [BOUND SIGN INPUT --set NAME=VALUE...]: a long training
# run of INPUT (default inputs/gray8.png) gets SIGNAL once its log shows SIGN (default: the line of
# the node before Train, so training is under way); it must exit with EXPECTED_RC within BOUND
# seconds (default 10) and leave no half-written model file (absent, or complete and decodable).
# The message is the run's summary line, its duration removed.
run_interrupt() {
    local name=$1 signal=$2 want_rc=$3 bound=${4:-10} sign=${5:-'^ran  *image '} input=${6:-inputs/gray8.png}
    shift $(($# < 6 ? $# : 6))
    local log="logs/$name.log" out="out/$name"
    mkdir -p logs
    FIELDFLOW_VALIDATION=1 "$fieldflow" run graphs/train.yaml --set input="$input" \
        --set steps=100000000 --set output="$out" "$@" --no-cache >"$log" 2>&1 &
    local pid=$!
    # The sign (not --quiet here, so log lines are printed). No fixed wait: a loaded machine may
    # take long to start.
    local polls=0
    until grep -q "$sign" "$log" || ! kill -0 "$pid" 2>/dev/null || [ $polls -ge 1200 ]; do
        sleep 0.1; polls=$((polls + 1))
    done
    kill -"$signal" "$pid"
    local start=$SECONDS waited=0
    while kill -0 "$pid" 2>/dev/null && [ $waited -lt 60 ]; do sleep 0.2; waited=$((SECONDS - start)); done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
    local rc=$? took=$((SECONDS - start))
    local message
    message=$(grep -m1 'interrupted' "$log" | sed -E 's/ in [0-9.]+ s$//')

    local verdict=PASS why=""
    [ "$rc" -eq "$want_rc" ] || { verdict=FAIL why="exit code $rc, expected $want_rc"; }
    [ "$took" -le "$bound" ] || { verdict=FAIL why="$why${why:+; }took $took s to exit after SIG$signal"; }
    [[ "$message" =~ ^[0-9]+\ nodes:\ .*\(interrupted\)$ ]] || { verdict=FAIL why="$why${why:+; }no interrupted summary line"; }
    if [ -e "$out/model.ffm" ] && ! "$tool" check "$out/model.ffm" 1 1 >/dev/null 2>&1 &&
        ! "$tool" check "$out/model.ffm" 40 30 >/dev/null 2>&1; then
        verdict=FAIL why="$why${why:+; }$out/model.ffm is half-written"
    fi
    if [ -d "$out" ] && find "$out" -name '.*.tmp-*' | grep -q .; then
        verdict=FAIL why="$why${why:+; }temporary files left in $out"
    fi
    grep -q 'validation \(error\|warning\): ' "$log" && { verdict=FAIL why="$why${why:+; }the validation layer reported a message"; }

    local shown="fieldflow run graphs/train.yaml --set input=$input --set steps=100000000 --set output=$out${*:+ $*}, then SIG$signal once training starts"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$shown" "$want_rc" "$rc" "$message" "$verdict" >>"$results"
    if [ $verdict = PASS ]; then
        printf 'PASS  %-22s exit %s  %s\n' "$name" "$rc" "$message"
    else
        failures=$((failures + 1))
        printf 'FAIL  %-22s %s\n' "$name" "$why"
        sed 's/^/      | /' "$log"
    fi
}

# run_diverge NAME MESSAGE_REGEX FIELDFLOW_ARGS...: a training run that diverges (a non-finite loss)
# must exit 1 with MESSAGE_REGEX, name the last good snapshot, leave that snapshot complete (a
# whole PNG of the image's size) and write no model file.
run_diverge() {
    local name=$1 want=$2; shift 2
    local log="logs/$name.log" out="out/$name"
    mkdir -p logs
    FIELDFLOW_VALIDATION=1 "$fieldflow" "$@" --set output="$out" --set snapshots="$out/snapshots" \
        --no-cache --quiet >"$log" 2>&1
    local rc=$?
    local message
    message=$(grep -m1 -E '(^|: )error: ' "$log" || head -n1 "$log")

    local verdict=PASS why=""
    [ "$rc" -eq 1 ] || { verdict=FAIL why="exit code $rc, expected 1"; }
    [[ "$message" =~ ^${want}$ ]] || { verdict=FAIL why="$why${why:+; }message does not match ^${want}\$"; }
    local good
    good=$(sed -nE 's/.*the last good snapshot is step ([0-9]+).*/\1/p' <<<"$message")
    if [ -z "$good" ]; then
        verdict=FAIL why="$why${why:+; }the message names no last good snapshot"
    elif ! "$tool" check "$out/.fieldflow-partial/snapshots/prediction_at_$good.png" 40 30 >/dev/null 2>&1; then
        verdict=FAIL why="$why${why:+; }the last good snapshot $out/.fieldflow-partial/snapshots/prediction_at_$good.png is missing or incomplete"
    fi
    [ -e "$out/model.ffm" ] && { verdict=FAIL why="$why${why:+; }a model file was written"; }
    if [ -d "$out" ] && find "$out" -name '.*.tmp-*' | grep -q .; then
        verdict=FAIL why="$why${why:+; }temporary files left in $out"
    fi
    grep -q 'validation \(error\|warning\): ' "$log" && { verdict=FAIL why="$why${why:+; }the validation layer reported a message"; }

    local shown="fieldflow $* --set output=$out --set snapshots=$out/snapshots"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$shown" 1 "$rc" "$message" "$verdict" >>"$results"
    if [ $verdict = PASS ]; then
        printf 'PASS  %-22s exit %s  %s\n' "$name" "$rc" "$message"
    else
        failures=$((failures + 1))
        printf 'FAIL  %-22s %s\n' "$name" "$why"
        sed 's/^/      | /' "$log"
    fi
}

rw=graphs/read_write.yaml train=graphs/train.yaml siren=graphs/siren.yaml infer=graphs/infer.yaml metrics=graphs/metrics.yaml
q="'" # message regexes quote file names

# ONLY=user_files as a fifth argument: just the cases of user_files_cases.sh (while working on them).
if [ "${5:-}" = ONLY=user_files ]; then
    . "$here/user_files_cases.sh"
    echo "bad_inputs: $(wc -l <"$results") cases, $failures failed"
    [ "$failures" -eq 0 ]
    exit
fi

# --- image files (validation looks at each file without decoding it: what check catches exits 2) ---
run_case missing_file 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}image${q}: param ${q}path${q}: file not found: ${q}inputs/missing.png${q}" \
    -- run $rw --set input=inputs/missing.png --set output=out/missing
run_case zero_byte_file 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}image${q}: param ${q}path${q}: ${q}inputs/zero_bytes.png${q} is empty \(0 bytes\)" \
    -- run $rw --set input=inputs/zero_bytes.png --set output=out/zero_bytes
post='! grep -q libpng logs/corrupt_png.log' # no raw library text
run_case corrupt_png 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}image${q}: param ${q}path${q}: ${q}inputs/truncated.png${q} is a truncated PNG \(it ends without its IEND chunk\)" \
    -- run $rw --set input=inputs/truncated.png --set output=out/truncated_png
run_case corrupt_jpeg 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}image${q}: param ${q}path${q}: ${q}inputs/truncated.jpg${q} is a truncated JPEG \(its image data ends without an end-of-image marker\)" \
    -- run $rw --set input=inputs/truncated.jpg --set output=out/truncated_jpg
run_case not_an_image 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}image${q}: param ${q}path${q}: cannot decode ${q}inputs/not_an_image.png${q}: not an image format this build reads \(its first bytes match no image format\)" \
    -- run $rw --set input=inputs/not_an_image.png --set output=out/not_an_image
run_case zero_size_png 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}image${q}: param ${q}path${q}: ${q}inputs/zero_size.png${q} is a PNG of 0x0 pixels \(an image needs at least 1x1\)" \
    -- run $rw --set input=inputs/zero_size.png --set output=out/zero_size
run_case one_pixel_image 0 "out/one_pixel/image.png: 1x1, 8-bit, 3 channels" \
    -- run $rw --set input=inputs/one_pixel.png --set output=out/one_pixel -- check out/one_pixel/image.png 1 1
run_case one_pixel_train 0 "out/one_pixel_train/model.ffm: model of a 1x1 image, grid 2x2" \
    -- run $train --set input=inputs/one_pixel.png --set output=out/one_pixel_train -- check out/one_pixel_train/model.ffm 1 1
# Written at the source's depth with the source's channels (gray stays gray, alpha is kept).
for case in "gray8 8 1" "rgba8 8 4" "rgb16 16 3" "gray16 16 1"; do
    read -r kind bits channels <<<"$case"
    [ "$channels" = 1 ] && unit=channel || unit=channels
    run_case "accepted_$kind" 0 "out/$kind/image.png: 40x30, $bits-bit, $channels $unit" \
        -- run $rw --set input=inputs/$kind.png --set output=out/$kind -- check out/$kind/image.png 40 30 $bits $channels
done
run_case accepted_exr 0 "out/rgb32/image.exr: 40x30, 32-bit float, 3 channels" \
    -- run $rw --set input=inputs/rgb32.exr --set output=out/rgb32 --set file=image.exr -- check out/rgb32/image.exr 40 30 32 3
run_case exr_to_png 0 "\[save\] warning: the image came from a 32-bit float file; png stores at most 16 bits per sample, so it is saved at 16 \(use \.exr to keep floats\)" \
    -- run $rw --set input=inputs/rgb32.exr --set output=out/rgb32_png

# Degenerate images: finite, valid metrics JSON; an image equal to its reference is "identical"
# (PSNR null), not a large number.
for case in "one_pixel psnr null, identical true" "constant psnr null, identical true" "one_by_n psnr [0-9.]+ dB, identical false"; do
    read -r kind expected <<<"$case"
    run_case "metrics_$kind" 0 "out/metrics_$kind/metrics.json: valid JSON, $expected" \
        -- run $metrics --set input=inputs/$kind.png --set output=out/metrics_$kind -- check out/metrics_$kind/metrics.json
done

# --- graphs that would destroy their own input or race ------------------------------------------
run_case overwrites_input 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}save${q}: param ${q}path${q}: writing ${q}inputs/gray8.png${q} would overwrite the file node ${q}image${q} reads \(graphs/read_write.yaml:[0-9]+:[0-9]+\); write elsewhere, or add \`overwrite: true\` to node ${q}save${q} to replace it on purpose" \
    -- run $rw --set input=inputs/gray8.png --set output=inputs --set file=gray8.png
run_case two_writers 2 "graphs/two_writers.yaml:[0-9]+:[0-9]+: error: node ${q}save_again${q}: param ${q}path${q}: ${q}out/two_writers/image.png${q} is also written by node ${q}save${q} \(graphs/two_writers.yaml:[0-9]+:[0-9]+\); two writers of one file race, give each its own path" \
    -- run graphs/two_writers.yaml --set input=inputs/gray8.png --set output=out/two_writers

run_case nan_pixels_train 0 "\[train\] warning: the image has 32-bit float samples; training keeps them at 16 bits per channel, and its 2 values outside \[0, 1\] \(or not finite\) were clamped" \
    -- run $train --set input=inputs/nan_pixels.pfm --set output=out/nan_pixels

# --- params -------------------------------------------------------------------------------------
run_case nan_param 2 "graphs/train.yaml:[0-9]+:[0-9]+: error: node ${q}train${q}: param ${q}lr_mlp${q} must be a finite number, got ${q}\.nan${q}" \
    -- run $train --set input=inputs/gray8.png --set lr=.nan
run_case inf_param 2 "graphs/train.yaml:[0-9]+:[0-9]+: error: node ${q}train${q}: param ${q}lr_mlp${q} must be a finite number, got ${q}\.inf${q}" \
    -- run $train --set input=inputs/gray8.png --set lr=.inf
run_case negative_param 2 "graphs/train.yaml:[0-9]+:[0-9]+: error: node ${q}train${q}: param ${q}steps${q} = -5 is out of range \[1, 100000000\]" \
    -- run $train --set input=inputs/gray8.png --set steps=-5
run_case batch_zero 2 "graphs/train.yaml:[0-9]+:[0-9]+: error: node ${q}train${q}: param ${q}batch${q} = 0 is out of range \[1, 4194304\]" \
    -- run $train --set input=inputs/gray8.png --set batch=0
run_case bad_checkpoint_interval 2 "graphs/train.yaml:[0-9]+:[0-9]+: error: node ${q}train${q}: param ${q}checkpoint_interval${q} = -1 is out of range \[0, 100000000\]" \
    -- run $train --set input=inputs/gray8.png --set checkpoint_interval=-1
run_case missing_graph 2 "graphs/missing.yaml:1:1: error: cannot read the graph file: No such file or directory" \
    -- run graphs/missing.yaml

# --- devices ------------------------------------------------------------------------------------
run_case unknown_device 1 "error: node ${q}train${q} failed: cannot open compute device ${q}7${q}: device index 7 out of range; devices:" \
    -- run $train --set input=inputs/gray8.png --set output=out/device7 --device 7
run_case unknown_device_param 2 "graphs/train.yaml:[0-9]+:[0-9]+: error: node ${q}train${q}: param ${q}device${q}: device index 7 is out of range: this machine has [0-9]+ Vulkan devices? \(0: .*\)" \
    -- run $train --set input=inputs/gray8.png --set output=out/device_param7 --set device=7
run_case no_vulkan_driver 1 "error: node ${q}train${q} failed: cannot open compute device ${q}auto${q}: no Vulkan driver found \(vkCreateInstance: VK_ERROR_[A-Z_]+\); install a Vulkan driver, e.g. mesa-vulkan-drivers for the CPU driver lavapipe" \
    VK_ICD_FILENAMES=/nonexistent FIELDFLOW_VALIDATION=0 -- run $train --set input=inputs/gray8.png --set output=out/no_driver
run_case too_large_for_device 1 "error: node ${q}train${q} failed: buffer ${q}feature grid${q} needs [0-9]+ bytes, more than the device${q}s [A-Za-z]+ \([0-9]+\)" \
    -- run $train --set input=inputs/gray8.png --set output=out/too_large --set grid=2048x2048 --set grid_channels=16
run_case too_large_render 1 "error: node ${q}render${q} failed: param ${q}width${q} \(graphs/infer.yaml:[0-9]+:[0-9]+\): output size 65536x65536 is too large \(at most [0-9]+ pixels\)" \
    -- run $infer --set model=inputs/small.ffm --set output=out/too_large_render --set width=65536 --set height=65536

# A render larger than one dispatch holds on lavapipe (65,535 workgroups of 64 pixels, 4.2
# megapixels) is rendered in bands of rows; it used to be refused (render_too_large_for_device),
# and at 16384x16384 it would now take many minutes on the CPU driver.
run_case render_in_bands 0 "out/render_bands/render.png: 4608x1024, 8-bit, 3 channels" \
    -- run $infer --set model=inputs/small.ffm --set output=out/render_bands --set width=4608 --set height=1024 \
    -- check out/render_bands/render.png 4608 1024

# --- training that diverges ----------------------------------------------------------------------
# A SIREN of 8 hidden layers of 64 with omega 1000 and lr 10 (all within TrainSiren's param
# ranges) overflows after a few dozen steps (steps 38-50 over seeds 1-8 and four images on
# lavapipe), after the snapshots at steps 1 and 10.
run_diverge diverging_training "error: node ${q}train${q} failed: training diverged at step [0-9]+ \(the loss is not finite\): the learning rate is probably too high \(lr 10 with omega 1000 and 8 hidden layers\), so the parameters overflowed; try a lower one; the last good snapshot is step [0-9]+ \(in ${q}out/diverging_training/\.fieldflow-partial/snapshots${q}\)" \
    run $siren --set input=inputs/gray8.png --set hidden_width=64 --set hidden_layers=8 \
    --set omega=1000 --set lr=10 --set steps=1000

# --- outputs and model files --------------------------------------------------------------------
run_case unwritable_output 2 "fieldflow run: error: cannot create output folder ${q}inputs/gray8.png/out${q}: Not a directory" \
    -- run $rw --set input=inputs/gray8.png --set output=inputs/gray8.png/out
run_case model_other_version 1 "error: node ${q}model${q} failed: inputs/other_version.ffm: unsupported version 2\.0 \(this build reads 1\)" \
    -- run $infer --set model=inputs/other_version.ffm --set output=out/other_version
run_case model_other_config 1 "error: node ${q}model${q} failed: inputs/other_config.ffm: invalid configuration \(hidden_width 48 must be 16, 32, 64 or 128\)" \
    -- run $infer --set model=inputs/other_config.ffm --set output=out/other_config
run_case model_valid 0 "out/model_valid/render.png: 16x12, 8-bit, 3 channels" \
    -- run $infer --set model=inputs/small.ffm --set output=out/model_valid -- check out/model_valid/render.png 16 12

# --- issue 19: data safety, caches, bounded jobs, leftovers, messages -------------------------
# 1. A batch never deletes or replaces what it did not write: an output folder that is the input
#    folder, or an existing folder of the user's, is refused before anything is written, and
#    the input (and that folder) keep every file and byte.
mkdir -p bx/trip other/trip
cp inputs/gray8.png bx/trip.png && cp inputs/rgba8.png bx/trip/precious_photo.png
cp inputs/rgba8.png other/trip/precious_photo.png && echo "my page" >other/index.html && echo "my,table" >other/summary.csv
bx_before=$(snapshot bx) other_before=$(snapshot other)
post='[ "$(snapshot bx)" = "$bx_before" ]'
run_case batch_output_is_input 2 "fieldflow batch: error: --input ${q}bx${q} and --output ${q}bx${q} are the same folder; give the results a folder of their own, outside the input folder" \
    -- batch $rw --input bx --output bx --set steps=10
post='[ "$(snapshot bx)" = "$bx_before" ] && [ "$(snapshot other)" = "$other_before" ]'
run_case batch_existing_folder 2 "fieldflow batch: error: ${q}other${q} already holds files fieldflow batch did not write \(e.g. ${q}index.html${q}\); a batch writes only into a new or empty folder, which it marks as its own: give another --output" \
    -- batch $rw --input bx --output other
# 2. --jobs -1 is not 4294967295.
run_case batch_jobs_negative 2 "fieldflow batch: error: --jobs -1 is out of range: give a whole number from 1 to 256 \(images in flight\)" \
    -- batch $rw --input bx --output out/batch_jobs --jobs -1
# 3. A cache entry replaced by a folder: a warning naming it, then a recompute.
"$fieldflow" run $train --set input=inputs/gray8.png --set output=out/cache_fill --cache cache_entry --quiet >logs/cache_fill.log 2>&1
for f in cache_entry/v1/*/*.ffc; do rm -f "$f" && mkdir "$f"; done
run_case cache_entry_is_folder 0 "warning: node ${q}train${q}: cache entry cache_entry/v1/<k>/<key>\.ffc is a folder, not a file; recomputing" \
    CACHE=cache_entry -- run $train --set input=inputs/gray8.png --set output=out/cache_entry
# 4. The SPIR-V cache: --cache DIR governs it (DIR/spirv); another shader's file copied over an
#    entry, or a folder in an entry's place, is a warning and a recompile, never served. Each
#    run has its own steps, so Train runs (and compiles) instead of coming from the node cache.
"$fieldflow" run $train --set input=inputs/gray8.png --set output=out/spirv_fill --cache spirv_cache --quiet >logs/spirv_fill.log 2>&1
spv() { ls spirv_cache/spirv/"$1"-*.spv | head -n1; }
cp "$(spv optimizer.comp)" "$(spv train_step.comp)"
run_case spirv_swapped 0 "fieldflow engine: warning: SPIR-V cache file spirv_cache/spirv/train_step\.comp-<key>\.spv holds another shader or configuration \(its key <key> is not its name${q}s\); recompiling" \
    CACHE=spirv_cache -- run $train --set input=inputs/gray8.png --set output=out/spirv_swapped --set steps=11
target=$(spv train_step.comp); rm -f "$target" && mkdir "$target"
run_case spirv_is_folder 0 "fieldflow engine: warning: SPIR-V cache path spirv_cache/spirv/train_step\.comp-<key>\.spv is a folder, not a file; recompiling \(not cached while it is there\)" \
    CACHE=spirv_cache -- run $train --set input=inputs/gray8.png --set output=out/spirv_is_folder --set steps=12
# 5. An empty output variable would put outputs at the root folder.
run_case empty_output 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}save${q}: param ${q}path${q}: variable ${q}output${q} is empty, so ${q}\\$\{output\}/\\$\{file\}${q} resolves to ${q}/image.png${q} in the root folder; give it a folder \(--set output=DIR\)" \
    -- run $rw --set input=inputs/gray8.png --set output=
# 6. Leftovers: what a killed run staged (a writer's temporary file among it) never reaches the
#    output folder and is cleared by the next run, and a batch removes its lock when it ends.
mkdir -p out/stale_temp/.fieldflow-partial && echo "another run" >out/stale_temp/.fieldflow-partial/.fieldflow-attempt
bash -c 'exit 0' & wait $!; dead=$!
head -c 1000 /dev/zero >"out/stale_temp/.fieldflow-partial/.image.tmp-$dead-0-0000abcd.png"
post='[ ! -e out/stale_temp/.fieldflow-partial ] && [ ! -e "out/stale_temp/.image.tmp-$dead-0-0000abcd.png" ]'
run_case stale_temp_removed 0 "out/stale_temp/image.png: 40x30, 8-bit, 1 channel" \
    -- run $rw --set input=inputs/gray8.png --set output=out/stale_temp -- check out/stale_temp/image.png 40 30 8 1
post='[ ! -e out/batch_lock/.lock ] && [ -d out/batch_lock/trip ]'
run_case batch_lock_removed 0 "ok" -- batch $rw --input bx --output out/batch_lock
# 7. A size over what can be read is refused from the file's header, before any decoding (so
#    `check` catches it too), and nothing is written. Both are over OpenCV's decoder limit, which no
#    max_pixels lifts, so the message is the same on every machine.
post='[ ! -e out/huge_png ]'
run_case huge_png_header 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}image${q}: param ${q}max_pixels${q}: ${q}inputs/huge_header.png${q} is 65000x65000 = 4225000000 pixels \(from its header\), over 1073741824 pixels, the most OpenCV${q}s decoders read \(OPENCV_IO_MAX_IMAGE_PIXELS\)" \
    -- run $rw --set input=inputs/huge_header.png --set output=out/huge_png
post='[ ! -e out/huge_jpeg ]'
run_case huge_jpeg_header 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}image${q}: param ${q}max_pixels${q}: ${q}inputs/huge_header.jpg${q} is 65000x40000 = 2600000000 pixels \(from its header\), over 1073741824 pixels, the most OpenCV${q}s decoders read \(OPENCV_IO_MAX_IMAGE_PIXELS\)" \
    -- run $rw --set input=inputs/huge_header.jpg --set output=out/huge_jpeg
# 8. A variable that refers to itself.
printf 'fieldflow: 1\nvars: {input: ~, output: "${output}"}\nnodes:\n  image: {op: ReadImage, params: {path: "${input}"}}\n' >graphs/self_reference.yaml
run_case self_referencing_variable 2 "graphs/self_reference.yaml:[0-9]+:[0-9]+: error: variable ${q}output${q} = ${q}\\$\{output\}${q} refers to itself: variable values are not expanded; give the value itself \(write ${q}\\$\\$\{${q} for a literal ${q}\\$\{${q}\)" \
    -- run graphs/self_reference.yaml --set input=inputs/gray8.png
# 8. Non-finite pixels written to a format that cannot hold them: a warning that counts them,
#    +inf written as full intensity (not black).
post='[ -s out/nan_copy/image.png ]'
run_case nan_pixels_copy 0 "\[save\] warning: image has 2 non-finite values \(1 NaN, 1 infinite\) that a png file cannot hold: written as 0 \(NaN, -inf\) and full intensity \(\+inf\); write \.exr to keep them" \
    -- run $rw --set input=inputs/nan_pixels.pfm --set output=out/nan_copy
#    JSON weights whose layer description contradicts the model, or whose render saturates.
run_case json_layer_in 1 "error: node ${q}model${q} failed: inputs/layer_in.json: layers\[0\]\.in is 3, but the model${q}s configuration gives [0-9]+" \
    CACHE= -- render --weights inputs/layer_in.json --output-image out/layer_in.png
run_case json_layer_omega 1 "error: node ${q}model${q} failed: inputs/layer_omega.json: layers\[0\]\.omega is 10\.0, but the model gives [0-9.]+ \(first_omega\)" \
    CACHE= -- render --weights inputs/layer_omega.json --output-image out/layer_omega.png
post='[ ! -e out/huge_weights_siren.png ]'
run_case json_weights_overflow 1 "error: node ${q}render${q} failed: the model renders [0-9]+ of [0-9]+ values as NaN or infinity: its weights overflow float arithmetic \(a damaged or hand-edited weights file\?\)" \
    CACHE= -- render --weights inputs/huge_weights_siren.json --output-image out/huge_weights_siren.png
post='[ -s out/huge_weights.png ]'
run_case json_weights_saturate 0 "\[render\] warning: every rendered value is exactly 0 or 1 \(the output saturates everywhere\), so the picture is flat: the model${q}s weights are likely far too large \(largest \|weight\| 1e\+38\)" \
    CACHE= -- render --weights inputs/huge_weights.json --output-image out/huge_weights.png
run_case json_weights_valid 0 "out/json_valid.png: 16x12, 8-bit, 3 channels" \
    CACHE= -- render --weights inputs/small.json --output-image out/json_valid.png -- check out/json_valid.png 16 12
# 9. Messages that say what is wrong.
run_case steps_too_large 2 "graphs/train.yaml:[0-9]+:[0-9]+: error: node ${q}train${q}: param ${q}steps${q} = 99999999999999999999 is out of range \[1, 100000000\]" \
    -- run $train --set input=inputs/gray8.png --set steps=99999999999999999999
run_case lr_underflow 2 "graphs/train.yaml:[0-9]+:[0-9]+: error: node ${q}train${q}: param ${q}lr_mlp${q} = 1e-400 underflows: it is too close to 0 for a double \(the smallest is about 2.2e-308\); the range is .*" \
    -- run $train --set input=inputs/gray8.png --set lr=1e-400
run_case render_negative_width 2 "fieldflow render:[0-9]+:[0-9]+: error: node ${q}render${q}: param ${q}width${q} = -5 is out of range .*" \
    CACHE= -- render --weights inputs/small.ffm --width -5 --output-image out/render_negative.png
run_case graph_is_folder 2 "graphs:1:1: error: the graph path is a folder, not a file; give a graph file \(.yaml\)" \
    -- run graphs
mkfifo inputs/fifo.ffm
run_case model_is_fifo 1 "error: node ${q}model${q} failed: param ${q}path${q} .*: ${q}inputs/fifo.ffm${q} is a FIFO \(named pipe\), not a model file" \
    -- run $infer --set model=inputs/fifo.ffm --set output=out/model_fifo
{ printf 'fieldflow: 1\nnodes:\n  a: '; printf '[%.0s' $(seq 1200); printf ']%.0s' $(seq 1200); echo; } >graphs/deep.yaml
run_case deep_nesting 2 "graphs/deep.yaml:[0-9]+:[0-9]+: error: YAML nesting deeper than [0-9]+ levels; a graph file needs only a few \(fieldflow > nodes > node > params\)" \
    -- run graphs/deep.yaml
printf 'fieldflow: 1\nnodes: [\n' >graphs/syntax_error.yaml
post='[ "$(grep -c error: logs/yaml_syntax_error_with_set.log)" -eq 1 ]'
run_case yaml_syntax_error_with_set 2 "graphs/syntax_error.yaml:[0-9]+:[0-9]+: error: YAML syntax: .*" \
    -- run graphs/syntax_error.yaml --set input=inputs/gray8.png --set output=out/syntax

. "$here/user_files_cases.sh"

# --- interrupts ---------------------------------------------------------------------------------
run_interrupt sigint_during_training INT 130
run_interrupt sigterm_during_training TERM 143
# 7. (issue 62) A full-image evaluation is one engine call: SIGINT once Train starts, with an
#    evaluation after every step of a wide, deep MLP on a 200x150 photo (each evaluation about
#    15 s on lavapipe), must end the run within 5 s, not when the evaluation ends.
"$tool" large inputs/eval_200x150.png 200 150 8 >/dev/null
run_interrupt sigint_during_evaluation INT 130 5 '^\[train\] training ' inputs/eval_200x150.png \
    --set hidden_width=128 --set hidden_layers=8 --set eval_interval=1

echo "bad_inputs: $(wc -l <"$results") cases, $failures failed"
[ "$failures" -eq 0 ]
