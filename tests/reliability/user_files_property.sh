#!/usr/bin/env bash
# The user's files are safe, as a property (CTest reliability_user_files_property): a generated
# tree of the user's files lies inside and beside every folder fieldflow writes (a batch's output,
# its image folders, logs, snapshot folders, a run's output folder, the cache and its
# subfolders). Then a sequence of batches, reruns, resumes, interrupts at random moments, runs,
# two concurrent runs and `cache prune`/`clear`. After every step each of the user's files must be
# there with its bytes, and every image folder (and the run's folder) must hold one run's complete
# set: exactly what its mark lists, plus the user's files.
#
#   user_files_property.sh FIELDFLOW INPUTS_TOOL WORK_DIR [SEED]
# The seed (default: the date) picks the names, the contents and the moments of the interrupts;
# a failure prints it, so it can be run again.
set -uo pipefail

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
    echo "usage: $0 FIELDFLOW INPUTS_TOOL WORK_DIR [SEED]" >&2
    exit 2
fi
fieldflow=$(realpath "$1") tool=$(realpath "$2") work=$(realpath -m "$3")
seed=${4:-$(date +%s)}
RANDOM=$seed
rm -rf "$work" && mkdir -p "$work/inputs" "$work/photos" && cd "$work" || exit 1
"$tool" inputs >/dev/null || exit 1
cp inputs/gray8.png photos/lake.png && cp inputs/rgba8.png photos/boat.png && cp inputs/rgb16.png photos/hill.png

# A few training steps on 40x30 photos: snapshots, a model, checkpoints in the cache.
cat >graph.yaml <<'EOF'
fieldflow: 1
vars: {input: ~, output: ~}
nodes:
  image: {op: ReadImage, params: {path: "${input}"}}
  copy: {op: WriteImage, inputs: {image: image}, params: {path: "${output}/image.png"}}
  train:
    op: Train
    inputs: {image: image}
    params: {steps: 6, batch: 64, hidden_width: 16, hidden_layers: 1, grid_channels: 3,
             snapshots: "${output}/snapshots", snapshot_steps: [1, 3, 6], eval_interval: 0,
             checkpoint_interval: 2}
  save: {op: SaveModel, inputs: {model: train.model}, params: {path: "${output}/model.ffm"}}
EOF

failures=0
fail() { echo "FAIL (seed $seed): $*"; failures=$((failures + 1)); }
step=""

# The user's files: "path<TAB>sha256" lines of everything added so far.
: >user_files.tsv
# add_user_files DIR: a few files (and a folder with one) of random names and bytes in DIR.
add_user_files() {
    local dir=$1 n name
    mkdir -p "$dir"
    for n in $(seq $((1 + RANDOM % 3))); do
        name="user_${RANDOM}_$n"
        case $((RANDOM % 4)) in
            0) name="$name.txt" ;;
            1) name="$name.png" ;;
            2) mkdir -p "$dir/$name" && name="$name/inner.txt" ;;
            3) name=".$name" ;;
        esac
        head -c $((RANDOM % 2000)) /dev/urandom >"$dir/$name"
        printf '%s\t%s\n' "$dir/$name" "$(sha256sum <"$dir/$name" | cut -d' ' -f1)" >>user_files.tsv
    done
}
# In a snapshot folder also a file of a snapshot's name at a step the graph never snapshots.
add_snapshot_lookalike() {
    local file=$1/prediction_at_$((100 + RANDOM % 900)).png
    mkdir -p "$1" && head -c 300 /dev/urandom >"$file"
    printf '%s\t%s\n' "$file" "$(sha256sum <"$file" | cut -d' ' -f1)" >>user_files.tsv
}

check_user_files() {
    local path hash
    while IFS=$'\t' read -r path hash; do
        if [ ! -f "$path" ]; then fail "$step: the user's file $path is gone"
        elif [ "$(sha256sum <"$path" | cut -d' ' -f1)" != "$hash" ]; then fail "$step: the user's file $path changed"
        fi
    done <user_files.tsv
}

# check_set FOLDER MARK: FOLDER holds what its mark lists (sizes as listed), a complete set, and
# besides only the user's files (and, for a run's folder, what an interrupted run of it staged in
# .fieldflow-partial/, and its lock while one runs).
check_set() {
    local folder=$1 mark=$2 path size mtime line
    while read -r line; do
        case $line in
            "F "*) read -r _ size mtime path <<<"$line"
                   [ "$(stat -c %s "$folder/$path" 2>/dev/null)" = "$size" ] ||
                       fail "$step: $folder/$path, listed in its mark, is missing or of another size" ;;
        esac
    done <"$mark"
    for path in image.png model.ffm snapshots/prediction_at_6.png; do
        grep -q " $path\$" "$mark" || fail "$step: $folder holds no $path: not a complete set"
    done
    while IFS= read -r path; do
        path=${path#"$folder/"}
        grep -q " $path\$" "$mark" || grep -q "^$folder/$path	" user_files.tsv ||
            fail "$step: $folder/$path is neither in its mark nor the user's: a mix of runs?"
    done < <(find "$folder" -path "$folder/.fieldflow-partial" -prune -o -type f ! -name "$(basename "$mark")" \
                 ! -name .fieldflow-lock -print)
}

# Every batch image folder in place, and the run's folder (its mark: .fieldflow-run), is one set.
check_output_folders() {
    local mark
    for mark in out/*/.fieldflow-batch-image runs/one/.fieldflow-run; do
        [ -e "$mark" ] && check_set "$(dirname "$mark")" "$mark"
    done
    if find out runs -name '.*.tmp-*' 2>/dev/null | grep -q .; then fail "$step: temporary files left"; fi
}

after() { step=$1; check_user_files; check_output_folders; }

batch() { "$fieldflow" batch graph.yaml --input photos --output out --cache cache --jobs 2 --quiet "$@" >>batch.log 2>&1; }
# interrupted CMD...: runs CMD, stopping it with SIGINT or SIGTERM at a random moment.
interrupted() {
    "$@" >>interrupted.log 2>&1 &
    local pid=$!
    sleep "$((RANDOM % 3)).$((RANDOM % 10))"
    kill -"$([ $((RANDOM % 2)) = 0 ] && echo INT || echo TERM)" "$pid" 2>/dev/null
    wait "$pid"
}

add_user_files .                     # beside every folder
batch || fail "the first batch failed (batch.log)"
after "first batch"
for stem in lake boat hill; do add_user_files "out/$stem"; add_user_files "out/$stem/snapshots"; add_snapshot_lookalike "out/$stem/snapshots"; done
add_user_files out/logs
add_user_files out
add_user_files cache; add_user_files cache/v1; add_user_files cache/state; add_user_files cache/spirv
batch || fail "the rerun failed (batch.log)"
after "rerun"
batch --resume || fail "the resumed batch failed (batch.log)"
after "resume"
for round in 1 2; do
    head -c 100 /dev/urandom >>photos/lake.png.note # a change elsewhere in the input folder
    interrupted "$fieldflow" batch graph.yaml --input photos --output out --cache cache --jobs 2 --quiet
    after "interrupted batch $round"
    batch --resume || fail "the batch resumed after interrupt $round failed (batch.log)"
    after "batch resumed after interrupt $round"
done

# `fieldflow run` into a folder of the user's, again, interrupted, and two at once.
add_user_files runs/one; add_user_files runs/one/snapshots; add_snapshot_lookalike runs/one/snapshots
run() { "$fieldflow" run graph.yaml --set input=photos/"$1" --set output=runs/one --cache cache --quiet; }
run lake.png >>run.log 2>&1 || fail "run into runs/one failed (run.log)"
after "run"
run boat.png >>run.log 2>&1 || fail "rerun into runs/one failed (run.log)"
after "rerun of run"
interrupted "$fieldflow" run graph.yaml --set input=photos/hill.png --set output=runs/one --cache cache --quiet
after "interrupted run"
run lake.png >>run.log 2>&1 & first=$!
run hill.png >>run.log 2>&1 & second=$!
wait $first; a=$?
wait $second; b=$?
for rc in $a $b; do [ "$rc" = 0 ] || [ "$rc" = 2 ] || fail "concurrent runs: exit code $rc (run.log)"; done
after "two concurrent runs"
# The last run to write it wrote lake (8-bit gray) or hill (16-bit RGB): whole, either way.
"$tool" check runs/one/image.png 40 30 8 1 >/dev/null 2>&1 || "$tool" check runs/one/image.png 40 30 16 3 >/dev/null 2>&1 ||
    fail "runs/one/image.png is not a complete image"

# The cache: pruning and clearing remove only its entries.
"$fieldflow" cache prune --older-than 0 --cache cache >>cache.log 2>&1 || fail "cache prune failed (cache.log)"
after "cache prune"
"$fieldflow" cache clear --cache cache >>cache.log 2>&1 || fail "cache clear failed (cache.log)"
after "cache clear"
batch || fail "the batch after cache clear failed (batch.log)"
after "batch after cache clear"

echo "user_files_property: seed $seed, $(wc -l <user_files.tsv) files of the user's, $failures failures"
[ "$failures" -eq 0 ]
