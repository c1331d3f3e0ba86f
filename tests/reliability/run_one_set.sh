#!/usr/bin/env bash
# A run's outputs are one consistent set (issue 62, case 4; CTest reliability_run_one_set).
#
#   run_one_set.sh FIELDFLOW INPUTS_TOOL WORK_DIR
# 1. A complete run of a small training graph writes out/: image.png, model.ffm and snapshots/.
#    The user's files lie beside them (and in snapshots/).
# 2. Runs of another image into out/ are stopped by SIGINT, SIGTERM, kill -9 and SIGPIPE (the
#    reader of its log goes away, as `| head` does), each once it said that image.png is written
#    (its "ran copy" line) while Train still trains: out/ must hold the first run's files, byte for
#    byte, and nothing else of the second's.
# 3. Two runs of two images into one folder at once: each ends with 0 or 2 (the folder's lock), and
#    the folder holds one image's complete set (every image the size of one input).
# 4. A completed rerun with other snapshot steps: the folder holds exactly its set, the earlier
#    run's snapshots gone, and the user's files all there with their bytes.
set -uo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 FIELDFLOW INPUTS_TOOL WORK_DIR" >&2
    exit 2
fi
fieldflow=$(realpath "$1") tool=$(realpath "$2") work=$(realpath -m "$3")
rm -rf "$work" && mkdir -p "$work/inputs" && cd "$work" || exit 1
"$tool" inputs >/dev/null || exit 1
"$tool" large inputs/small.png 24 16 8 >/dev/null || exit 1

cat >graph.yaml <<'EOF'
fieldflow: 1
vars: {input: ~, output: ~, steps: 6, shots: "[1, 3, 6]"}
nodes:
  image: {op: ReadImage, params: {path: "${input}"}}
  copy: {op: WriteImage, inputs: {image: image}, params: {path: "${output}/image.png"}}
  train:
    op: Train
    inputs: {image: image}
    params: {steps: "${steps}", batch: 64, hidden_width: 16, hidden_layers: 1, grid_channels: 3,
             snapshots: "${output}/snapshots", snapshot_steps: "${shots}", eval_interval: 0,
             cpu_steps: 0}
  save: {op: SaveModel, inputs: {model: train.model}, params: {path: "${output}/model.ffm"}}
EOF

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# env execs the program: a background run's $! is the run itself, which the signals must reach.
run=(env FIELDFLOW_VALIDATION=1 "$fieldflow" run graph.yaml --no-cache --jobs 2)

# The folder's visible files with their hashes (the user's hidden file is checked on its own).
listing() { (cd "$1" && find . -path '*/.*' -prune -o -type f -print | sort | xargs -r sha256sum); }
# Every image in the set has the size of one input, and the set is complete.
one_set() {
    local dir=$1 w h
    for size in "40 30" "24 16"; do
        read -r w h <<<"$size"
        "$tool" check "$dir/model.ffm" "$w" "$h" >/dev/null 2>&1 || continue
        "$tool" check "$dir/image.png" "$w" "$h" 8 1 >/dev/null 2>&1 ||
            "$tool" check "$dir/image.png" "$w" "$h" 8 3 >/dev/null 2>&1 || { echo "image.png is not ${w}x$h"; return 1; }
        for shot in "$dir"/snapshots/prediction_at_*.png; do
            [ "$shot" = "$dir/snapshots/prediction_at_500.png" ] && continue # the user's
            file "$shot" | grep -q ", $w x $h," || { echo "$shot is not ${w}x$h"; return 1; }
        done
        return 0
    done
    echo "model.ffm is missing or of neither input"
    return 1
}

# 1. The first complete run, and the user's files.
"${run[@]}" --set input=inputs/gray8.png --set output=out >first.log 2>&1 || fail "the first run failed (first.log)"
mkdir -p out/notes && echo "mine" >out/notes/todo.txt && echo "my picture" >out/my_picture.png
echo "hidden" >out/.my_settings && echo "a snapshot lookalike" >out/snapshots/prediction_at_500.png
user_files="notes/todo.txt my_picture.png .my_settings snapshots/prediction_at_500.png"
user_hashes() { (cd out && sha256sum $user_files); }
before=$(listing out) users=$(user_hashes)
[ -s out/model.ffm ] && [ -s out/snapshots/prediction_at_6.png ] || fail "the first run wrote no complete set"

# 2. Interrupted runs of another image: out/ stays as it was.
wait_for_copy() { # LOG PID: until the run says image.png is written (at most 120 s)
    local polls=0
    until grep -q '^ran  *copy ' "$1" || ! kill -0 "$2" 2>/dev/null || [ $polls -ge 1200 ]; do
        sleep 0.1; polls=$((polls + 1))
    done
    grep -q '^ran  *copy ' "$1"
}
for signal in INT TERM KILL PIPE; do
    log=interrupted_$signal.log
    if [ $signal = PIPE ]; then
        # The log's reader leaves at the sign: the run's next progress line meets a closed pipe.
        FIELDFLOW_PROGRESS_SECONDS=0.2 "${run[@]}" --set input=inputs/small.png --set output=out --set steps=100000000 2>&1 |
            { grep -m1 '^ran  *copy ' >"$log"; }
        rc=${PIPESTATUS[0]}
        grep -q '^ran  *copy ' "$log" || fail "$signal: the run never said it wrote image.png ($log)"
    else
        "${run[@]}" --set input=inputs/small.png --set output=out --set steps=100000000 >"$log" 2>&1 &
        pid=$!
        wait_for_copy "$log" "$pid" || fail "$signal: the run never said it wrote image.png ($log)"
        kill -$signal "$pid" 2>/dev/null
        wait "$pid"
        rc=$?
    fi
    [ "$rc" -ne 0 ] || fail "$signal: the interrupted run exited 0 ($log)"
    [ "$(listing out)" = "$before" ] ||
        fail "$signal: out/ no longer holds the first run's files alone: $(diff <(echo "$before") <(listing out) | tr '\n' ' ')"
    [ "$(user_hashes)" = "$users" ] || fail "$signal: the user's files changed"
done

# 3. Two runs at once into one folder.
"${run[@]}" --set input=inputs/gray8.png --set output=both >both_a.log 2>&1 & a=$!
"${run[@]}" --set input=inputs/small.png --set output=both >both_b.log 2>&1 & b=$!
wait $a; rc_a=$?
wait $b; rc_b=$?
for rc in $rc_a $rc_b; do [ "$rc" = 0 ] || [ "$rc" = 2 ] || fail "two runs at once: exit code $rc (both_*.log)"; done
[ "$rc_a" = 0 ] || [ "$rc_b" = 0 ] || fail "two runs at once: neither finished"
why=$(one_set both) || fail "two runs at once: not one run's set: $why"

# 4. A completed rerun with other snapshot steps replaces the earlier run's files, keeps the user's.
"${run[@]}" --set input=inputs/small.png --set output=out --set 'shots=[2, 6]' >rerun.log 2>&1 || fail "the rerun failed (rerun.log)"
why=$(one_set out) || fail "rerun: not one run's set: $why"
got=$(cd out && find . -path '*/.*' -prune -o -type f -print | sort | tr '\n' ' ')
want="./image.png ./model.ffm ./my_picture.png ./notes/todo.txt ./snapshots/feature_at_2.png ./snapshots/feature_at_6.png "
want+="./snapshots/prediction_at_2.png ./snapshots/prediction_at_500.png ./snapshots/prediction_at_6.png "
want+="./snapshots/training_log.csv ./snapshots/training_log.png "
[ "$got" = "$want" ] || fail "rerun: out/ holds $got, expected $want"
[ "$(user_hashes)" = "$users" ] || fail "rerun: the user's files changed"
[ ! -e out/.fieldflow-partial ] || fail "rerun: its staging folder is still there"
if find out both -name '.*.tmp-*' | grep -q .; then fail "temporary files left"; fi

echo "run_one_set: $failures failures"
[ "$failures" -eq 0 ]
